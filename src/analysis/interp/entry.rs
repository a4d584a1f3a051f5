//! Running a kernel or a device function as an entry point: the file's `__shared__` arrays
//! bound, the template arguments its launch or call gives (a value parameter nothing gives is
//! a uniform unknown), its member types, and its parameters (a kernel's from the launch or as
//! uniform unknowns; a device function's, which no kernel calls here, unknown per lane).

use super::*;

impl<'a, 'p> Analyzer<'a, 'p> {
    pub(super) fn run_function(&mut self, f: &Function) {
        let Some(def) = self.unit.definition(f) else {
            return;
        };
        for a in self.unit.file_shared.clone() {
            let id = self.register_array(a.clone());
            if let Some(global) = self.scopes.first_mut() {
                Rc::make_mut(global).insert(a.name.clone(), Binding::Shared(id));
            }
        }
        self.item = f.item;
        self.function = f.name.clone();
        // Types declared nowhere, each bound to an opaque element of one size per analysis.
        let member_types = self.template_args.iter().filter(|(n, _)| n.contains("::"));
        for (name, ty) in member_types.chain(&self.assumed_types) {
            let is_param = f
                .template
                .iter()
                .any(|t| t.params.iter().any(|p| p.name == *name));
            // An opaque element of one size, or a member type of a class parameter
            // (`Acc::ftype`, spelled `Acc__ftype` in the C text) bound to a scalar of one size.
            let bound = crate::analysis::types::opaque_element(ty)
                .or_else(|| type_from_text(&self.types, ty));
            if !is_param && let Some(t) = bound {
                let spelled = name.replace("::", "__");
                Rc::make_mut(&mut self.types).named.insert(spelled, t);
            }
        }
        for param in f.template.iter().flat_map(|t| t.params.iter()) {
            let given = self
                .template_args
                .iter()
                .chain(&self.assumed_types)
                .find(|(n, _)| *n == param.name)
                .map(|(_, v)| v.clone())
                .or_else(|| param.default.clone());
            if param.is_type {
                if let Some(ty) = given
                    .as_deref()
                    .and_then(|t| self.type_of_text(t, def.declarator.span))
                {
                    Rc::make_mut(&mut self.types)
                        .named
                        .insert(param.name.clone(), ty);
                }
                if let Some(t) = given
                    && !self.type_args.contains_key(&param.name)
                {
                    Rc::make_mut(&mut self.type_args).insert(param.name.clone(), t);
                }
                continue;
            }
            // A template argument no launch, call or default gives is still one constant for
            // the whole grid: a uniform unknown, which moves every lane alike (`s[tid + OFF]`)
            // and leaves a stride it sets unknown, saying which (`s[tid * STRIDE]`).
            let value = given
                .as_deref()
                .and_then(|d| const_eval_text(self.unit, d))
                .map_or_else(
                    || {
                        let sym = self.syms.fresh(param.name.clone());
                        // A device function is given its arguments by a call, not a launch.
                        let how = if f.kernel { "launch" } else { "call" };
                        let why = format!(
                            "template parameter `{}` has no known value ({how} `{}<...>` in this file or give it a default)",
                            param.name, f.name
                        );
                        self.unvalued_template_params.insert(sym, why);
                        Lanes::Same(Value::sym(sym))
                    },
                    Lanes::int,
                );
            Rc::make_mut(&mut self.template_values).insert(param.name.clone(), value);
        }
        self.bind_dependent_types();
        let body = self.unit.items.get(f.item).map(|i| i.chunk.span.clone());
        self.bind_member_types(body, def.declarator.span);
        for p in &f.params {
            let known = self
                .arguments
                .iter()
                .find(|(n, _)| *n == p.name)
                .map(|(_, v)| *v);
            let v = if let (true, Some(v)) = (f.kernel, known) {
                Lanes::int(v)
            } else if f.kernel {
                self.uniform(&p.name)
            } else {
                Lanes::Each(Rc::new(vec![
                    Value::unknown(format!(
                        "it depends on parameter `{}` of device function `{}`, which no kernel in this file calls",
                        p.name, f.name
                    ));
                    self.n
                ]))
            };
            self.bind(&p.name, Binding::Value(v));
        }
        let mask = vec![true; self.n];
        self.returns.push(None);
        let reference =
            (self.unit.prepared.reference_returns.iter()).any(|r| r.contains(&f.span.start));
        self.returns_reference.push(reference);
        self.exec(&def.statement, &mask);
        self.returns_reference.pop();
        self.returns.pop();
    }
}
