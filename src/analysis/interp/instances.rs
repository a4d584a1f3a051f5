//! Class template instances as the analyzed code writes them (`sv<T, 64>`, `x128` for
//! `typedef Packed128<floatX> x128;`, `reinterpret_cast<sv<float, 64> *>`): the arguments are
//! evaluated in the current scope, the layout comes from `analysis::class_templates`.

use super::{Analyzer, type_from_text};
use crate::analysis::class_templates::{Argument, class_template, instance_parts, instantiate};
use crate::analysis::types::Type;
use lang_c::ast::{
    ArraySize, DeclarationSpecifier, DerivedDeclarator, Expression, SpecifierQualifier,
    StructDeclaration, TypeName, TypeSpecifier,
};
use lang_c::span::{Node, Span};
use std::collections::HashMap;

impl Analyzer<'_, '_> {
    /// The layout of `class<args>` (arguments as written here, in order), or `None` when
    /// `class` is no class template banklint has read.
    pub(super) fn class_instance(
        &mut self,
        class: &str,
        args: &[String],
        at: Span,
    ) -> Option<Type> {
        let template = class_template(&self.types, class)?;
        if self.instance_depth >= crate::limits::MAX_INSTANCE_NESTING {
            return Some(Type::Unknown(format!(
                "`{class}<{}>`, nested in template arguments deeper than banklint lays out",
                args.join(", ")
            )));
        }
        self.instance_depth += 1;
        let ty = self.class_instance_within(&template, args, at);
        self.instance_depth -= 1;
        Some(ty)
    }

    fn class_instance_within(
        &mut self,
        template: &std::rc::Rc<crate::analysis::types::ClassTemplate>,
        args: &[String],
        at: Span,
    ) -> Type {
        let mut resolved: Vec<(String, Argument)> = Vec::new();
        for (k, param) in template.header.params.iter().enumerate() {
            // A default may name the parameters before it (`int C = R`).
            let earlier: Vec<(&str, &str)> = template.header.params[..k]
                .iter()
                .zip(&resolved)
                .map(|(p, (text, _))| (p.name.as_str(), text.as_str()))
                .collect();
            let Some(text) = args.get(k).cloned().or_else(|| {
                let d = param.default.as_deref()?;
                Some(crate::front::names::replace_words(d, &earlier))
            }) else {
                resolved.push((param.name.clone(), Argument::Unknown));
                continue;
            };
            if param.is_type {
                let text = self.type_args.get(text.trim()).cloned().unwrap_or(text);
                let arg = self
                    .type_of_text(&text, at)
                    .map_or(Argument::Unknown, Argument::Type);
                resolved.push((text, arg));
            } else {
                let mask = vec![true; self.n];
                match self.eval_text(&text, at, &mask, &param.name).as_const() {
                    Some(v) => resolved.push((v.to_string(), Argument::Value(v))),
                    None => resolved.push((text, Argument::Unknown)),
                }
            }
        }
        let texts: Vec<String> = resolved.iter().map(|(t, _)| t.clone()).collect();
        let args: Vec<Argument> = resolved.into_iter().map(|(_, a)| a).collect();
        // The same text may name another type elsewhere (a dependent type under another
        // binding): a layout is reused only for the same evaluated arguments.
        let key = (template.tag.clone(), texts);
        if let Some((seen, known)) = self.class_instances.get(&key)
            && *seen == args
        {
            return known.clone();
        }
        let texts = &key.1;
        // The class's static constant members under these arguments (`size` in `payload[size]`).
        let members: Vec<String> = self
            .preparations()
            .flat_map(|p| p.static_members.iter())
            .filter(|m| m.class == template.tag)
            .map(|m| m.member.clone())
            .collect();
        let instance = format!("{}<{}>", template.tag, texts.join(", "));
        let mut values = HashMap::new();
        for m in members {
            if let Some(v) = self.class_constant(&instance, &m) {
                values.insert(m, v);
            }
        }
        // The file's constants an extent names (`float a[kTile];` of a `constexpr int kTile`
        // at namespace scope), where no parameter or member of the class has that name.
        for name in extent_identifiers(&template.definition) {
            let own = template.header.params.iter().any(|p| p.name == name);
            if !own
                && !values.contains_key(&name)
                && let Some(v) = self.named_constant(&name)
            {
                values.insert(name, v);
            }
        }
        // Its member types under these arguments (`using dtype = typename packing<T>::type;`):
        // a field may be declared with one.
        // Only those a field is declared with: a traits class has many, and none of the
        // others changes the layout.
        // A nested struct (`G__P`) may name its enclosing classes' member types too.
        let used = field_type_names(&template.definition);
        let enclosing = |class: &str| {
            template
                .tag
                .strip_prefix(class)
                .is_some_and(|rest| rest.starts_with("__"))
        };
        let names: Vec<(String, String)> = self
            .preparations()
            .flat_map(|p| p.member_typedefs.iter())
            .filter(|m| {
                (m.class == template.tag || enclosing(&m.class))
                    && used.contains(&m.member.as_str())
            })
            .map(|m| {
                let owner = if m.class == template.tag {
                    instance.clone()
                } else {
                    m.class.clone()
                };
                (owner, m.member.clone())
            })
            .collect();
        let mut member_types = Vec::new();
        for (owner, name) in names {
            if member_types.iter().any(|(n, _)| *n == name) {
                continue;
            }
            if let Some(crate::front::class_members::Member::Type(t)) =
                self.class_member(&owner, &name)
                && let Some(ty) = self.type_of_text(&t, at)
                && !matches!(ty, Type::Unknown(_))
            {
                member_types.push((name, ty));
            }
        }
        // Fields that are class template instances, under these arguments.
        let fields: Vec<(String, String)> = self
            .preparations()
            .flat_map(|p| p.template_fields.iter())
            .filter(|(class, _, _)| *class == template.tag)
            .map(|(_, field, ty)| (field.clone(), ty.clone()))
            .collect();
        let mut field_types = Vec::new();
        if !fields.is_empty() {
            let classes = self.classes();
            let written: Vec<(String, String)> = (fields.into_iter())
                .map(|(field, ty)| (field, classes.within(&instance, &ty)))
                .collect();
            for (field, ty) in written {
                if let Some(t) = self.type_of_text(&ty, at)
                    && !matches!(t, Type::Unknown(_))
                {
                    field_types.push((field, t));
                }
            }
        }
        let extents = self.call_extent_values(template, &values);
        let own = crate::analysis::class_templates::InstanceTypes {
            members: member_types,
            fields: field_types,
            extents,
        };
        let display = format!("{}<{}>", template.tag, texts.join(", "));
        let ty = instantiate(
            &self.types,
            template,
            &args,
            &|m| values.get(m).copied(),
            &own,
            &display,
        );
        self.class_instances.insert(key, (args, ty.clone()));
        ty
    }

    /// The field extents of `template` that call a function (`char buf[max_bytes()]`),
    /// evaluated at file scope: only those that name none of its parameters or static
    /// members, which the layout binds itself.
    fn call_extent_values(
        &mut self,
        template: &crate::analysis::types::ClassTemplate,
        members: &HashMap<String, i64>,
    ) -> Vec<((usize, usize), i64)> {
        let mut out = Vec::new();
        for (at, text) in &template.call_extents {
            let mentions = |name: &str| crate::front::names::mentions_word(text, name);
            let own = members.keys().any(|m| mentions(m))
                || template.header.params.iter().any(|p| mentions(&p.name));
            if own {
                continue;
            }
            if let Some(v) = self.eval_text_at_file_scope(text).as_const() {
                out.push((*at, v));
            }
        }
        out
    }

    /// `text` with the alias template's instance it is expanded (`tile_f<32, 32>` ->
    /// `tile<float, 32, 32>`), again while the result is one, boundedly; `text` itself when
    /// it names none.
    pub(super) fn without_alias_templates(&self, text: &str) -> String {
        let mut out = text.to_string();
        if self.preparations().all(|p| p.alias_templates.is_empty()) {
            return out;
        }
        // Context-free (it reads the unit's declarations only): once per text.
        let key = (std::ptr::from_ref(self.unit) as usize, out);
        if let Some(known) = self.alias_expansions.borrow().get(&key) {
            return known.clone();
        }
        out = key.1.clone();
        let classes = self.classes();
        for _ in 0..crate::limits::MAX_INSTANCE_NESTING {
            // `typename varr<A>::type`, which an alias may name, is the member type it is.
            let next = match classes.alias_instance(&out) {
                Some(t) => classes.resolve(&t),
                None => break,
            };
            out = next;
        }
        self.alias_expansions.borrow_mut().insert(key, out.clone());
        out
    }

    /// Whether `name` (`st_bf`, `kittens__st_bf`) is an alias template's.
    fn is_alias_template(&self, name: &str) -> bool {
        let bare = name.rsplit("__").next().unwrap_or(name);
        self.preparations()
            .any(|p| p.alias_templates.iter().any(|a| a.name == bare))
    }

    /// A type written as text: a class template instance (`sv<float, 64>`), else what
    /// [`type_from_text`] reads.
    pub(super) fn type_of_text(&mut self, text: &str, at: Span) -> Option<Type> {
        if let Some(picked) = self.conditional_type(text, at) {
            return self.type_of_text(&picked, at);
        }
        let text = &self.without_alias_templates(text.trim().trim_start_matches("const "));
        let trimmed = text.trim().trim_start_matches("const ");
        if let Some((class, args)) = instance_parts(trimmed)
            && let Some(t) = self.class_instance(&class, &args, at)
        {
            return Some(t);
        }
        let found = type_from_text(&self.types, text);
        if !matches!(found, None | Some(Type::Unknown(_))) {
            return found;
        }
        if let Some(laid_out) = self.struct_without_parameters(trimmed, at) {
            return Some(laid_out);
        }
        match self.alias_target(trimmed) {
            // `tile_t`, a file's alias of a class template's instance (`tile<32, 32>`, or
            // `tile_bf<32, 32>` of an alias template).
            Some(target) if instance_parts(&target).is_some() => {
                self.type_of_text(&target, at).or(found)
            }
            _ => found,
        }
    }

    /// A struct the type table could not lay out (a field of a class template instance's
    /// type, named through an alias), laid out here as a class template without parameters.
    /// `G::P[2]`, an array of one, too.
    pub(super) fn struct_without_parameters(&mut self, name: &str, at: Span) -> Option<Type> {
        let (elem, extents) = crate::analysis::types::split_array_suffix(name);
        let elem = elem.trim().replace("::", "__");
        let template = class_template(&self.types, &elem)?;
        if !template.header.params.is_empty() {
            return None;
        }
        let ty = self.class_instance(&elem, &[], at)?;
        Some(crate::analysis::types::array_of(ty, &extents))
    }

    /// The type a type name written at `at` names when it is a class template instance: with
    /// its arguments written there (`sv<float, 64> *x`), or an alias of one (`x128`).
    fn written_instance(&mut self, name: &str, at: Span) -> Option<Type> {
        let args = self.arguments_written_at(name, at);
        if class_template(&self.types, name).is_some() {
            if !args.is_empty() {
                return self.class_instance(name, &args, at);
            }
        } else if !args.is_empty() {
            // `tile_f<32, 32>`, an alias template's instance.
            let written = format!("{}<{}>", name.replace("__", "::"), args.join(", "));
            let expanded = self.without_alias_templates(&written);
            if expanded != written {
                return self.type_of_text(&expanded, at);
            }
        }
        // Only a name whose own layout is unknown can be an alias of an instance.
        if !matches!(self.types.lookup(name), Some(Type::Unknown(_)) | None) {
            return None;
        }
        if let Some(laid_out) = self.struct_without_parameters(name, at) {
            return Some(laid_out);
        }
        let target = self.without_alias_templates(&self.alias_target(name)?);
        let (class, args) = instance_parts(&target)?;
        self.class_instance(&class, &args, at)
    }

    /// The class template instance declaration specifiers name, if they name one.
    pub(super) fn declared_instance(
        &mut self,
        specs: &[Node<DeclarationSpecifier>],
    ) -> Option<Type> {
        let (name, at) = specs.iter().find_map(|s| match &s.node {
            DeclarationSpecifier::TypeSpecifier(t) => typedef_name(t),
            _ => None,
        })?;
        self.written_instance(&name, at)
    }

    /// A struct defined in the declaration (`__shared__ struct { bool marks[THREADS * 4]; } s;`
    /// in a kernel template) whose field extents name the running instantiation's values: laid
    /// out with them. `None` when the specifiers define no struct body.
    pub(super) fn struct_laid_out_here(
        &mut self,
        specs: &[Node<DeclarationSpecifier>],
    ) -> Option<Type> {
        let st = specs.iter().find_map(|s| match &s.node {
            DeclarationSpecifier::TypeSpecifier(t) => match &t.node {
                TypeSpecifier::Struct(st) if st.node.declarations.is_some() => Some(&st.node),
                _ => None,
            },
            _ => None,
        })?;
        // The names the extents use, valued here (a template parameter, a constant), and
        // the class template instances the fields are written with (`box ref[N]` of a local
        // `typedef box_t<T> box;`).
        let mut names = Vec::new();
        let mut types = (*self.types).clone();
        for sd in st.declarations.iter().flatten() {
            let StructDeclaration::Field(f) = &sd.node else {
                continue;
            };
            for spec in &f.node.specifiers {
                if let SpecifierQualifier::TypeSpecifier(t) = &spec.node
                    && let Some((name, at)) = typedef_name(t)
                    && types.lookup(&name).is_none_or(|t| t.size().is_none())
                    && let Some(instance) = (self.written_instance(&name, at))
                        .or_else(|| self.local_alias_instance(&name, at))
                {
                    types.named.insert(name, instance);
                }
            }
            for d in f
                .node
                .declarators
                .iter()
                .filter_map(|d| d.node.declarator.as_ref())
            {
                for derived in &d.node.derived {
                    if let DerivedDeclarator::Array(a) = &derived.node
                        && let ArraySize::VariableExpression(e) | ArraySize::StaticExpression(e) =
                            &a.node.size
                    {
                        extent_names(e, &mut names);
                    }
                }
            }
        }
        let all = vec![true; self.n];
        let mut values: HashMap<String, i64> = HashMap::new();
        for (name, e) in names {
            if let Some(v) = self.eval(&e, &all).as_const() {
                values.insert(name, v);
            }
        }
        let leaf = |e: &Node<Expression>| match &e.node {
            Expression::Identifier(id) => values.get(&id.node.name).copied(),
            Expression::SizeOfTy(t) => {
                let t = &t.node.0.node;
                if t.declarator.is_some() {
                    return Some(8);
                }
                crate::analysis::extraction::type_from_qualifiers(&types, &t.specifiers)
                    .size()
                    .map(i64::from)
            }
            _ => None,
        };
        Some(crate::analysis::extraction::struct_type_in_part(
            &types, st, &leaf,
        ))
    }

    /// The type declaration specifiers name, class template instances included.
    pub(super) fn declared_type(&mut self, specs: &[Node<DeclarationSpecifier>]) -> Type {
        self.declared_instance(specs)
            .unwrap_or_else(|| crate::analysis::extraction::base_type(&self.types, specs))
    }

    /// The type a cast's or `sizeof`'s specifiers name, class template instances included.
    pub(super) fn qualified_type(&mut self, specs: &[Node<SpecifierQualifier>]) -> Type {
        specs
            .iter()
            .find_map(|s| match &s.node {
                SpecifierQualifier::TypeSpecifier(t) => typedef_name(t),
                _ => None,
            })
            .and_then(|(name, at)| self.written_instance(&name, at))
            .unwrap_or_else(|| {
                crate::analysis::extraction::type_from_qualifiers(&self.types, specs)
            })
    }

    /// The pointee of a C++ cast's type as written (`reinterpret_cast<sv<float, 64> *>`, whose
    /// type lang-c read without its arguments), when it is a class template instance. Only a
    /// cast to a class template's name (`sv *` as lang-c read it) looks up the text.
    pub(super) fn cpp_cast_instance(&mut self, cast: Span, read: &TypeName) -> Option<Type> {
        let names_template = read.specifiers.iter().any(|s| match &s.node {
            SpecifierQualifier::TypeSpecifier(t) => typedef_name(t).is_some_and(|(name, _)| {
                class_template(&self.types, &name).is_some() || self.is_alias_template(&name)
            }),
            _ => false,
        });
        if !names_template {
            return None;
        }
        let at = self.span(cast).start;
        let written = self
            .unit
            .prepared
            .casts
            .iter()
            .find(|(o, _)| *o == at)
            .map(|(_, t)| t.clone())?;
        let pointee = written.trim().strip_suffix('*')?;
        if !pointee.contains('<') {
            return None;
        }
        self.type_of_text(pointee, cast)
    }
}

/// The type names a class's fields are declared with (`dtype` of `dtype data[N];`).
fn field_type_names(st: &lang_c::ast::StructType) -> Vec<&str> {
    let mut out = Vec::new();
    for d in st.declarations.iter().flatten() {
        let lang_c::ast::StructDeclaration::Field(f) = &d.node else {
            continue;
        };
        for s in &f.node.specifiers {
            if let SpecifierQualifier::TypeSpecifier(t) = &s.node
                && let TypeSpecifier::TypedefName(id) = &t.node
            {
                out.push(id.node.name.as_str());
            }
        }
    }
    out
}

pub(super) fn typedef_name(t: &Node<TypeSpecifier>) -> Option<(String, Span)> {
    match &t.node {
        TypeSpecifier::TypedefName(id) => Some((id.node.name.clone(), id.span)),
        _ => None,
    }
}

/// The identifiers the field extents of `st` name, nested structs' included.
fn extent_identifiers(st: &lang_c::ast::StructType) -> Vec<String> {
    let mut names: Vec<(String, Node<Expression>)> = Vec::new();
    for e in crate::analysis::field_extents::field_extents(st) {
        extent_names(e, &mut names);
    }
    names.into_iter().map(|(name, _)| name).collect()
}

/// The identifiers an extent expression reads (`THREADS * ITEMS`), each with the expression
/// that reads it, for the analyzer to value.
fn extent_names(e: &Node<Expression>, out: &mut Vec<(String, Node<Expression>)>) {
    match &e.node {
        Expression::Identifier(id) if !out.iter().any(|(n, _)| *n == id.node.name) => {
            out.push((id.node.name.clone(), e.clone()));
        }
        Expression::BinaryOperator(b) => {
            extent_names(&b.node.lhs, out);
            extent_names(&b.node.rhs, out);
        }
        Expression::UnaryOperator(u) => extent_names(&u.node.operand, out),
        Expression::Cast(c) => extent_names(&c.node.expression, out),
        _ => {}
    }
}
