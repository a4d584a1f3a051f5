//! A `template <...>` header's parameters, as the front end reads them from the syntax tree
//! and every later stage binds them.

use std::ops::Range;

/// Template parameters of a `template <...>` header, by the offset the header ends at.
#[derive(Clone, Debug)]
pub struct TemplateHeader {
    pub span: Range<usize>,
    /// In declaration order.
    pub params: Vec<TemplateParam>,
}

/// One template parameter: `int BLOCK = 16` or `typename T`.
#[derive(Clone, Debug, PartialEq)]
pub struct TemplateParam {
    pub name: String,
    pub is_type: bool,
    /// The default, as written.
    pub default: Option<String>,
    /// A pack (`typename... Ts`, `size_t... dims`): it takes the arguments left.
    pub pack: bool,
    /// The concept a constrained type parameter names (`ducks::rt::all` of
    /// `ducks::rt::all RT`).
    pub constraint: Option<String>,
}

impl TemplateParam {
    /// A pack's binding: the arguments left (`float, int`), under its expansion as written
    /// (`Ts...`), which is what the code names; `Ts` alone names no one type.
    pub fn pack_binding(&self, rest: &[String]) -> (String, String) {
        let rest: Vec<&str> = rest.iter().map(|a| a.trim()).collect();
        (format!("{}...", self.name), rest.join(", "))
    }
}

impl TemplateHeader {
    /// Non-type parameters with their defaults.
    pub fn values(&self) -> Vec<(String, Option<String>)> {
        self.params
            .iter()
            .filter(|p| !p.is_type)
            .map(|p| (p.name.clone(), p.default.clone()))
            .collect()
    }

    pub fn types(&self) -> Vec<String> {
        self.params
            .iter()
            .filter(|p| p.is_type)
            .map(|p| p.name.clone())
            .collect()
    }
}
