//! Extraction: from lang-c's AST, the file's model: struct and typedef layouts, file-scope
//! constants and enums, `__shared__` declarations, and the kernels and device functions to
//! analyze. Access sites themselves are found by the index analyzer as it walks each body.

use crate::analysis::field_extents::{ExtentLeaf, call_extents, extent_value, integer_expr};
use crate::analysis::types::{Type, TypeTable, layout_record, scalar_from_words};
use crate::front::cuda::{Keyword, Prepared, TemplateHeader};
use crate::front::parse::{ParseOutcome, ParsedItem};
use lang_c::ast::*;
use lang_c::span::Node;
use std::collections::HashMap;
use std::ops::Range;
use std::rc::Rc;

/// A `__shared__` array declaration.
#[derive(Clone, Debug)]
pub struct SharedArray {
    pub name: String,
    pub elem: Type,
    /// Dimension expressions, outermost first; `None` for `[]`.
    pub dims: Vec<Option<Node<Expression>>>,
    /// File spans of the dimension expressions (for the padding fix).
    pub dim_spans: Vec<Option<Range<usize>>>,
    /// The whole declaration statement, `__shared__` through `;`.
    pub decl_span: Range<usize>,
    /// The declared name.
    pub name_span: Range<usize>,
    pub is_extern: bool,
    /// The parsed item the declaration lives in (its spans map through it).
    pub item: usize,
    /// Where the array is declared when that is not where it is reported (see
    /// `DeclaredElsewhere`); its spans are then at that place in the analyzed file.
    pub declared_in: Option<DeclaredElsewhere>,
    /// The struct or typedef name the declaration is written with, where the type table
    /// could not lay it out (a field extent naming a file constant): the analysis lays it
    /// out where the array is used.
    pub unsized_type: Option<String>,
}

/// An array reported at a place in the analyzed file but declared in another place.
#[derive(Clone, Debug, PartialEq)]
pub enum DeclaredElsewhere {
    /// The dynamic shared memory a wrapper class (`SharedMemory<float>`) hands out: the
    /// class's own `extern __shared__` declaration, which may be in a header.
    Wrapper(crate::front::cuda::WrapperArray),
    /// A header function's own `__shared__` array, run at a call in the analyzed file with
    /// that call's template arguments and block (its spans are the call's).
    Function {
        function: String,
        array: String,
        /// The header, as included from the analyzed file.
        file: String,
        /// 1-based line of the array's name.
        line: usize,
    },
}

impl DeclaredElsewhere {
    /// The declared array's name.
    pub fn array(&self) -> &str {
        match self {
            DeclaredElsewhere::Wrapper(w) => &w.array,
            DeclaredElsewhere::Function { array, .. } => array,
        }
    }

    /// The file (`""`: the analyzed one) and 1-based line of the declaration.
    pub fn place(&self) -> (&str, usize) {
        match self {
            DeclaredElsewhere::Wrapper(w) => (&w.file, w.line),
            DeclaredElsewhere::Function { file, line, .. } => (file, *line),
        }
    }

    /// Who declares it: `SharedMemory<float>` (the class) or `combine` (the function).
    pub fn declarer(&self) -> String {
        match self {
            DeclaredElsewhere::Wrapper(w) => format!(
                "{}{}",
                w.class,
                w.args
                    .as_ref()
                    .map_or(String::new(), |a| format!("<{}>", a.join(", ")))
            ),
            DeclaredElsewhere::Function { function, .. } => function.clone(),
        }
    }
}

/// A file-scope name with a compile-time value.
#[derive(Clone, Debug)]
pub enum NamedConstant {
    /// `const int N = 32;` / `constexpr`: the initializer, evaluated on use.
    Expr {
        expr: Node<Expression>,
        item: usize,
    },
    Value(i64),
    /// An enumerator: the last value written in its enum plus how many came after it.
    Enumerator {
        expr: Node<Expression>,
        offset: i64,
        item: usize,
    },
}

#[derive(Clone, Debug)]
pub struct Param {
    pub name: String,
    pub ty: Type,
    /// The declared type has a sized array dimension (`float (*t)[32]`, `float t[][32]`): an
    /// array handed to it cannot change its row length.
    pub spells_row_length: bool,
    /// The extent of an array parameter written with a literal one (`float (&x)[4]`), which
    /// tells overloads apart.
    pub extent: Option<i64>,
    /// Position in the parameter list (unnamed parameters count).
    pub index: usize,
    /// A function parameter pack (`const T &... xs`): it takes the arguments left.
    pub pack: bool,
    /// Its default argument as written (`int arch = 900`), for a call that leaves it out.
    pub default: Option<String>,
}

/// A `__global__` or `__device__` function definition.
#[derive(Clone, Debug)]
pub struct Function {
    pub name: String,
    pub kernel: bool,
    pub params: Vec<Param>,
    pub item: usize,
    /// Index into the item's declarations.
    pub decl: usize,
    /// File span of the whole definition.
    pub span: Range<usize>,
    pub template: Option<TemplateHeader>,
    /// The namespace it is declared in, `a__b` (empty: global).
    pub namespace: String,
}

impl Function {
    /// Whether a call with `arity` arguments matches its parameters: as many, or, with a
    /// parameter pack, at least the others.
    pub fn takes(&self, arity: usize) -> bool {
        let pack = self.params.iter().any(|p| p.pack);
        self.params.len() == arity || (pack && arity + 1 >= self.params.len())
    }

    /// Tells overloads apart by parameter count (`f(short *, int)` and `f(unsigned *)`).
    /// Its namespace, name and arity: `kittens::group::arrive` calling `kittens::arrive` is
    /// not recursion.
    pub fn overload_key(&self) -> String {
        format!("{}::{}/{}", self.namespace, self.name, self.params.len())
    }

    /// The overload key and where the definition starts: overloads of one name and arity
    /// that differ in their template parameters (`f<axis, T>(T &)` and its wrapper `f<T>(T &)`)
    /// are different functions, and one calling the other is not recursion.
    pub fn definition_key(&self) -> String {
        format!("{}@{}", self.overload_key(), self.span.start)
    }
}

/// Everything later stages need about one file.
pub struct Unit<'p> {
    pub prepared: &'p Prepared,
    pub items: Vec<ParsedItem>,
    pub types: TypeTable,
    pub constants: HashMap<String, NamedConstant>,
    pub file_shared: Vec<SharedArray>,
    pub functions: Vec<Function>,
    /// Built on first use: `functions` by name, and the file's type names as a set
    /// (a tile library has thousands of each, and calls look them up all the time).
    lookup: std::cell::OnceCell<Lookup>,
    /// Expressions parsed from text (launch arguments, macro bodies), by text.
    parsed_texts:
        std::cell::RefCell<HashMap<String, Option<lang_c::span::Node<lang_c::ast::Expression>>>>,
}

/// See [`Unit::lookup`].
struct Lookup {
    functions: HashMap<String, Vec<usize>>,
    typenames: std::collections::HashSet<String>,
    /// Type names spelled `P__member` (`typename P::member`), by `P`: (member, name).
    members_of: HashMap<String, Vec<(String, String)>>,
}

impl Unit<'_> {
    /// 1-based line of the file where an offset of the expanded text is written.
    pub fn line_of(&self, offset: usize) -> usize {
        self.prepared.line_of(offset)
    }
}

impl Unit<'_> {
    pub fn definition(&self, f: &Function) -> Option<&FunctionDefinition> {
        match &self.items.get(f.item)?.decls.get(f.decl)?.node {
            ExternalDeclaration::FunctionDefinition(def) => Some(&def.node),
            _ => None,
        }
    }

    /// The definition a call of `name` with `arity` arguments resolves to among overloads:
    /// the one with that many parameters, else one with more (default arguments), else the
    /// first of that name.
    /// The function a call names: by its name as written, else, for a qualified name
    /// (`tma::expect` joined as `tma__expect`), the function of that name declared in a
    /// namespace the qualifier names. Overloads by arity: an exact count, then one with
    /// defaults, then any.
    pub fn function(&self, name: &str, arity: usize) -> Option<&Function> {
        let named = self.candidates(name);
        named
            .iter()
            .find(|f| f.takes(arity))
            .or_else(|| named.iter().find(|f| f.params.len() > arity))
            .or_else(|| named.first())
            .copied()
    }

    /// The functions a call of `name` may name that take exactly `arity` arguments: more
    /// than one is an overload chosen by the arguments' types.
    pub fn overloads(&self, name: &str, arity: usize) -> Vec<&Function> {
        self.candidates(name)
            .into_iter()
            .filter(|f| f.takes(arity))
            .collect()
    }

    /// The functions of this name, else of a qualified name's last part in a namespace the
    /// qualifier names.
    fn candidates(&self, name: &str) -> Vec<&Function> {
        let named = |n: &str| -> Vec<&Function> {
            self.lookup()
                .functions
                .get(n)
                .map(|at| at.iter().map(|&i| &self.functions[i]).collect())
                .unwrap_or_default()
        };
        let exact = named(name);
        if !exact.is_empty() {
            return exact;
        }
        let Some((bare, qualifier)) = crate::front::names::split_qualified(name) else {
            return Vec::new();
        };
        named(bare)
            .into_iter()
            .filter(|f| crate::front::names::namespace_matches(&f.namespace, qualifier))
            .collect()
    }

    fn lookup(&self) -> &Lookup {
        self.lookup.get_or_init(|| {
            let mut functions: HashMap<String, Vec<usize>> = HashMap::new();
            for (i, f) in self.functions.iter().enumerate() {
                functions.entry(f.name.clone()).or_default().push(i);
            }
            let mut members_of: HashMap<String, Vec<(String, String)>> = HashMap::new();
            for name in &self.prepared.typenames {
                // Every split: a scope may end in `_` (`P_::Type` is spelled `P___Type`).
                for (scope, member) in crate::front::names::scope_splits(name) {
                    members_of
                        .entry(scope.to_string())
                        .or_default()
                        .push((member.to_string(), name.clone()));
                }
            }
            Lookup {
                functions,
                typenames: self.prepared.typenames.iter().cloned().collect(),
                members_of,
            }
        })
    }

    /// The type names written `typename scope::member` (spelled `scope__member`), as
    /// (member, name).
    pub fn member_typenames(&self, scope: &str) -> &[(String, String)] {
        self.lookup()
            .members_of
            .get(scope)
            .map_or(&[][..], |v| &v[..])
    }

    /// Whether `name` is one of the file's type names (its own and its headers').
    pub fn is_typename(&self, name: &str) -> bool {
        self.lookup().typenames.contains(name)
    }

    /// `text` parsed as an expression by `parse`, once per text.
    pub fn parsed_text(
        &self,
        text: &str,
        parse: impl FnOnce() -> Option<lang_c::span::Node<lang_c::ast::Expression>>,
    ) -> Option<lang_c::span::Node<lang_c::ast::Expression>> {
        if let Some(known) = self.parsed_texts.borrow().get(text) {
            return known.clone();
        }
        let parsed = parse();
        self.parsed_texts
            .borrow_mut()
            .insert(text.to_string(), parsed.clone());
        parsed
    }
}

pub fn extract<'p>(prepared: &'p Prepared, parsed: ParseOutcome) -> Unit<'p> {
    let mut unit = Unit {
        prepared,
        items: parsed.items,
        types: TypeTable {
            classes: prepared.class_names.clone(),
            alignments: prepared.class_alignments.iter().cloned().collect(),
            template_headers: prepared.class_templates.iter().cloned().collect(),
            ..TypeTable::default()
        },
        constants: HashMap::new(),
        file_shared: Vec::new(),
        functions: Vec::new(),
        lookup: Default::default(),
        parsed_texts: Default::default(),
    };
    // `#define fp float` before `struct { fp x; }`: macro-named types first, and aliases
    // (`using idx_t = int64_t;`, which lowering blanks) of the types known by then.
    unit.types
        .add_macro_types(&prepared.macros.object_like_at(usize::MAX));
    unit.types.add_macro_types(&prepared.aliases);
    for item_idx in 0..unit.items.len() {
        let decl_count = unit.items[item_idx].decls.len();
        for d in 0..decl_count {
            let ext = unit.items[item_idx].decls[d].node.clone();
            match ext {
                ExternalDeclaration::Declaration(decl) => {
                    let item = &unit.items[item_idx];
                    let text =
                        |s: lang_c::span::Span| prepared.text.get(item.span(s)).map(str::to_string);
                    register_types(&mut unit.types, &decl.node, &text);
                    file_scope_declaration(&mut unit, item_idx, &decl);
                }
                ExternalDeclaration::FunctionDefinition(def) => {
                    let item = &unit.items[item_idx];
                    let kernel = match item.chunk.kind {
                        crate::front::cuda::ChunkKind::DeviceFunction { kernel } => kernel,
                        _ => continue,
                    };
                    let Some(name) = declarator_name(&def.node.declarator.node) else {
                        continue;
                    };
                    let is_pack = |d: &Declarator| {
                        declarator_name_span(item, d)
                            .is_some_and(|s| prepared.packs.is_param(s.start))
                    };
                    let default = |d: &Declarator| {
                        let at = declarator_name_span(item, d)?.start;
                        (prepared.default_arguments.iter())
                            .find(|(name, _)| *name == at)
                            .map(|(_, text)| text.clone())
                    };
                    let params =
                        function_params(&unit.types, &def.node.declarator.node, &is_pack, &default);
                    let span = item.span(def.span);
                    let name = item.chunk.display_name.clone().unwrap_or(name);
                    let template = item.chunk.template.clone().or_else(|| {
                        prepared
                            .templates
                            .iter()
                            .rfind(|t| {
                                t.span.end <= item.chunk.span.start
                                    && prepared.text[t.span.end..item.chunk.span.start]
                                        .trim()
                                        .is_empty()
                            })
                            .cloned()
                    });
                    unit.functions.push(Function {
                        name,
                        kernel,
                        params,
                        item: item_idx,
                        decl: d,
                        span,
                        template,
                        namespace: item.chunk.namespace.clone(),
                    });
                }
                ExternalDeclaration::StaticAssert(_) => {}
            }
        }
    }
    // Aliases of the structs declared above.
    unit.types.add_macro_types(&prepared.aliases);
    unit
}

fn file_scope_declaration(unit: &mut Unit<'_>, item_idx: usize, decl: &Node<Declaration>) {
    let before = unit.constants.len();
    file_scope_constants(unit, item_idx, decl);
    // Declared in `namespace a::b`: also named `b::N` and `a::b::N` (`b__N`, `a__b__N` as
    // lang-c reads them), as code outside the namespace writes them.
    let namespace = unit.items[item_idx].chunk.namespace.clone();
    if unit.constants.len() > before && !namespace.is_empty() {
        let parts: Vec<&str> = namespace.split("__").collect();
        let declared: Vec<(String, NamedConstant)> = constant_names(decl)
            .into_iter()
            .filter_map(|n| Some((n.clone(), unit.constants.get(&n)?.clone())))
            .collect();
        for (name, constant) in declared {
            for k in 0..parts.len() {
                let qualified = format!("{}__{name}", parts[k..].join("__"));
                unit.constants
                    .entry(qualified)
                    .or_insert_with(|| constant.clone());
            }
        }
    }
}

/// The names a declaration gives constants to: its declarators and enumerators.
fn constant_names(decl: &Node<Declaration>) -> Vec<String> {
    let mut names: Vec<String> = decl
        .node
        .declarators
        .iter()
        .filter_map(|d| declarator_name(&d.node.declarator.node))
        .collect();
    for spec in &decl.node.specifiers {
        if let DeclarationSpecifier::TypeSpecifier(ts) = &spec.node
            && let TypeSpecifier::Enum(e) = &ts.node
        {
            names.extend(
                e.node
                    .enumerators
                    .iter()
                    .map(|en| en.node.identifier.node.name.clone()),
            );
        }
    }
    names
}

fn file_scope_constants(unit: &mut Unit<'_>, item_idx: usize, decl: &Node<Declaration>) {
    let item = &unit.items[item_idx];
    if let Some(arrays) = shared_arrays_in(unit.prepared, item, item_idx, &unit.types, decl) {
        unit.file_shared.extend(arrays);
        return;
    }
    // Enumerators are constants.
    for spec in &decl.node.specifiers {
        if let DeclarationSpecifier::TypeSpecifier(ts) = &spec.node
            && let TypeSpecifier::Enum(e) = &ts.node
        {
            // Each enumerator is the last written value plus how many came after it.
            let mut base: Option<Node<Expression>> = None;
            let mut offset = 0i64;
            for en in &e.node.enumerators {
                let name = en.node.identifier.node.name.clone();
                if let Some(expr) = &en.node.expression {
                    base = Some((**expr).clone());
                    offset = 0;
                }
                let constant = match &base {
                    Some(expr) => NamedConstant::Enumerator {
                        expr: expr.clone(),
                        offset,
                        item: item_idx,
                    },
                    None => NamedConstant::Value(offset),
                };
                unit.constants.insert(name, constant);
                offset += 1;
            }
        }
    }
    let span = item.span(decl.span);
    let is_const = decl.node.specifiers.iter().any(|s| {
        matches!(&s.node, DeclarationSpecifier::TypeQualifier(q) if matches!(q.node, TypeQualifier::Const))
    }) || unit
        .prepared
        .keywords_in(unit.prepared.blank_before(span.start)..span.end)
        .any(|(k, _)| *k == Keyword::Constexpr);
    if !is_const || is_typedef(&decl.node) {
        return;
    }
    for init in &decl.node.declarators {
        if let (
            Some(name),
            Some(Node {
                node: Initializer::Expression(expr),
                ..
            }),
        ) = (
            declarator_name(&init.node.declarator.node),
            &init.node.initializer,
        ) && init.node.declarator.node.derived.is_empty()
        {
            unit.constants.insert(
                name,
                NamedConstant::Expr {
                    expr: (**expr).clone(),
                    item: item_idx,
                },
            );
        }
    }
}

fn is_typedef(decl: &Declaration) -> bool {
    decl.specifiers.iter().any(|s| {
        matches!(&s.node, DeclarationSpecifier::StorageClass(sc) if matches!(sc.node, StorageClassSpecifier::Typedef))
    })
}

/// The `__shared__` arrays a declaration declares, or `None` if it is not `__shared__`.
pub fn shared_arrays_in(
    prepared: &Prepared,
    item: &ParsedItem,
    item_idx: usize,
    types: &TypeTable,
    decl: &Node<Declaration>,
) -> Option<Vec<SharedArray>> {
    let start = item.offset(decl.span.start);
    let first_declarator = decl
        .node
        .declarators
        .first()
        .map_or(item.offset(decl.span.end), |d| item.offset(d.span.start));
    // Its CUDA words were blanked: they are in the blank run before it, or inside it.
    let lead = prepared.blank_before(start);
    let shared = prepared
        .keywords_in(lead..first_declarator)
        .any(|(k, _)| *k == Keyword::Shared);
    if !shared {
        return None;
    }
    // The declaration starts at its first blanked keyword.
    let decl_start = prepared
        .keywords_in(lead..start)
        .map(|(_, at)| *at)
        .next()
        .unwrap_or(start);
    let decl_end = item.offset(decl.span.end);
    let base = base_type(types, &decl.node.specifiers);
    let unsized_type = match base {
        Type::Unknown(_) => specified_type_name(&decl.node.specifiers),
        _ => None,
    };
    let is_extern = decl.node.specifiers.iter().any(|s| {
        matches!(&s.node, DeclarationSpecifier::StorageClass(sc) if matches!(sc.node, StorageClassSpecifier::Extern))
    });
    let mut out = Vec::new();
    for init in &decl.node.declarators {
        let d = &init.node.declarator;
        let Some(name) = declarator_name(&d.node) else {
            continue;
        };
        let mut elem = base.clone();
        let mut dims = Vec::new();
        let mut dim_spans = Vec::new();
        for derived in &d.node.derived {
            match &derived.node {
                DerivedDeclarator::Array(a) => match &a.node.size {
                    ArraySize::VariableExpression(e) | ArraySize::StaticExpression(e) => {
                        dim_spans.push(Some(item.span(e.span)));
                        dims.push(Some((**e).clone()));
                    }
                    _ => {
                        dim_spans.push(None);
                        dims.push(None);
                    }
                },
                DerivedDeclarator::Pointer(_) => elem = Type::Pointer(Box::new(elem)),
                _ => {}
            }
        }
        // `typedef float row[33]; __shared__ row tile[32];` is `float tile[32][33]`: the
        // type's extents follow the declarator's (with no span of their own to pad).
        while let Type::Array(inner, n) = elem {
            dims.push(Some(integer_expr(n, d.span)));
            dim_spans.push(None);
            elem = *inner;
        }
        out.push(SharedArray {
            name,
            elem,
            dims,
            dim_spans,
            decl_span: decl_start..decl_end,
            name_span: declarator_name_span(item, &d.node).unwrap_or(start..start),
            is_extern,
            item: item_idx,
            declared_in: None,
            unsized_type: unsized_type.clone(),
        });
    }
    Some(out)
}

/// The typedef name or struct tag declaration specifiers name.
fn specified_type_name(specs: &[Node<DeclarationSpecifier>]) -> Option<String> {
    specs.iter().find_map(|s| match &s.node {
        DeclarationSpecifier::TypeSpecifier(t) => match &t.node {
            TypeSpecifier::TypedefName(id) => Some(id.node.name.clone()),
            TypeSpecifier::Struct(st) => st.node.identifier.as_ref().map(|i| i.node.name.clone()),
            _ => None,
        },
        _ => None,
    })
}

/// The type named by declaration specifiers (`unsigned int`, `float4`, `struct P`).
pub fn base_type(types: &TypeTable, specs: &[Node<DeclarationSpecifier>]) -> Type {
    let ts: Vec<&TypeSpecifier> = specs
        .iter()
        .filter_map(|s| match &s.node {
            DeclarationSpecifier::TypeSpecifier(t) => Some(&t.node),
            _ => None,
        })
        .collect();
    type_from_specifiers(types, &ts)
}

/// The type named by the specifiers of a struct field, cast or `sizeof` (`const float`).
pub fn type_from_qualifiers(types: &TypeTable, specs: &[Node<SpecifierQualifier>]) -> Type {
    let ts: Vec<&TypeSpecifier> = specs
        .iter()
        .filter_map(|s| match &s.node {
            SpecifierQualifier::TypeSpecifier(t) => Some(&t.node),
            _ => None,
        })
        .collect();
    type_from_specifiers(types, &ts)
}

pub fn type_from_specifiers(types: &TypeTable, ts: &[&TypeSpecifier]) -> Type {
    let mut words = Vec::new();
    for t in ts {
        match t {
            TypeSpecifier::TypedefName(id) => {
                return types
                    .lookup(&id.node.name)
                    .unwrap_or_else(|| Type::Unknown(id.node.name.clone()));
            }
            TypeSpecifier::Struct(st) => return struct_type(types, &st.node),
            TypeSpecifier::Enum(_) => return Type::scalar("int", 4, false),
            TypeSpecifier::Void => words.push("void"),
            TypeSpecifier::Char => words.push("char"),
            TypeSpecifier::Short => words.push("short"),
            TypeSpecifier::Int => words.push("int"),
            TypeSpecifier::Long => words.push("long"),
            TypeSpecifier::Float => words.push("float"),
            TypeSpecifier::Double => words.push("double"),
            TypeSpecifier::Signed => words.push("signed"),
            TypeSpecifier::Unsigned => words.push("unsigned"),
            TypeSpecifier::Bool => words.push("bool"),
            _ => {}
        }
    }
    scalar_from_words(&words).unwrap_or_else(|| Type::Unknown(words.join(" ")))
}

/// A struct as the file declares it: laid out when every field's size is a constant here.
/// One that is not stays without a layout, for the analysis to lay out where it is used (a
/// class template's instance, a named struct of a library's type: `struct_type_in_part`).
fn struct_type(types: &TypeTable, st: &StructType) -> Type {
    struct_layout(types, st, &|_| None, false)
}

/// The layout of a struct where it is used: `leaf` gives the value of an identifier or
/// `sizeof` in its field extents (a class template's parameters and members, a kernel's
/// template arguments). Where a field's size is not known (a library's `TempStorage`), it is
/// laid out as far as C's rules allow (see `types::layout_partial_record`).
pub fn struct_type_in_part(types: &TypeTable, st: &StructType, leaf: &ExtentLeaf<'_>) -> Type {
    struct_layout(types, st, leaf, true)
}

fn struct_layout(types: &TypeTable, st: &StructType, leaf: &ExtentLeaf<'_>, partial: bool) -> Type {
    let tag = st.identifier.as_ref().map(|i| i.node.name.clone());
    match &st.declarations {
        None => tag
            .and_then(|t| types.lookup(&t))
            .unwrap_or_else(|| Type::Unknown("incomplete struct".into())),
        Some(decls) => {
            let mut fields = Vec::new();
            // A field whose extent is not a constant here: the struct cannot be laid out.
            let mut unsized_field = None;
            for sd in decls {
                let StructDeclaration::Field(f) = &sd.node else {
                    continue;
                };
                let base = type_from_qualifiers(types, &f.node.specifiers);
                for d in &f.node.declarators {
                    let Some(decl) = &d.node.declarator else {
                        continue;
                    };
                    let Some(name) = declarator_name(&decl.node) else {
                        continue;
                    };
                    let mut ty =
                        (types.field_types.get(&name).cloned()).unwrap_or_else(|| base.clone());
                    let mut dims = Vec::new();
                    for derived in &decl.node.derived {
                        match &derived.node {
                            DerivedDeclarator::Pointer(_) => ty = Type::Pointer(Box::new(ty)),
                            DerivedDeclarator::Array(a) => {
                                let extent = match &a.node.size {
                                    ArraySize::VariableExpression(e)
                                    | ArraySize::StaticExpression(e) => {
                                        extent_value(e, leaf).and_then(|v| u32::try_from(v).ok())
                                    }
                                    _ => None,
                                };
                                match extent {
                                    Some(n) => dims.push(n),
                                    None => {
                                        unsized_field.get_or_insert(name.clone());
                                    }
                                }
                            }
                            _ => {}
                        }
                    }
                    // `row r[2];` of `typedef float row[32];` is `float r[2][32];`.
                    while let Type::Array(inner, n) = ty {
                        dims.push(n);
                        ty = *inner;
                    }
                    fields.push((name, ty, dims));
                }
            }
            if let Some(field) = unsized_field {
                let word = match st.kind.node {
                    StructKind::Union => "union",
                    _ => "struct",
                };
                return crate::analysis::types::unsized_struct(word, tag.as_deref(), &field);
            }
            let union = matches!(st.kind.node, StructKind::Union)
                && !tag.as_ref().is_some_and(|t| types.classes.contains(t));
            let name = tag.as_deref().unwrap_or("<anonymous struct>");
            let align = (tag.as_ref())
                .and_then(|t| types.alignments.get(t).copied())
                .unwrap_or(1);
            // A field of unknown size (a library's `TempStorage`) leaves the others laid out
            // as far as they can be.
            let complete =
                (fields.iter()).all(|(_, t, _)| t.size().is_some() && t.align().is_some());
            let laid_out = if complete {
                layout_record(name, fields, union, align)
            } else if partial {
                crate::analysis::types::layout_partial_record(name, fields, union, align)
            } else {
                None
            };
            match laid_out {
                Some(r) => Type::Record(Rc::new(r)),
                None => Type::Unknown(format!("struct {}", tag.unwrap_or_default())),
            }
        }
    }
}

/// The tagged struct with a body a specifier defines (`struct S { ... }`), with its tag.
fn struct_definition(spec: &DeclarationSpecifier) -> Option<(&str, &StructType)> {
    if let DeclarationSpecifier::TypeSpecifier(ts) = spec
        && let TypeSpecifier::Struct(st) = &ts.node
        && let (Some(tag), Some(_)) = (&st.node.identifier, &st.node.declarations)
    {
        return Some((tag.node.name.as_str(), &st.node));
    }
    None
}

/// Whether `decl` introduces a name [`register_types`] records: a tagged struct with a body,
/// or a typedef.
pub fn declares_types(decl: &Declaration) -> bool {
    is_typedef(decl)
        || decl
            .specifiers
            .iter()
            .any(|spec| struct_definition(&spec.node).is_some())
}

/// The text a node of the declaration being registered was written as.
pub type SpanText<'a> = dyn Fn(lang_c::span::Span) -> Option<String> + 'a;

/// Registers struct tags and typedef names a declaration introduces (`text` gives what a
/// node of it was written as).
pub fn register_types(types: &mut TypeTable, decl: &Declaration, text: &SpanText<'_>) {
    for spec in &decl.specifiers {
        if let Some((tag, st)) = struct_definition(&spec.node) {
            let inner = register_nested_structs(types, tag, st, 0, text);
            register_struct(types, tag, st, text);
            // The nested structs' own names serve the outer one's body only.
            for name in inner {
                types.named.remove(&name);
            }
        }
    }
    if is_typedef(decl) {
        let base = base_type(types, &decl.specifiers);
        for init in &decl.declarators {
            if let Some(name) = declarator_name(&init.node.declarator.node) {
                let ty = typedef_type(&base, &init.node.declarator.node)
                    .unwrap_or_else(|| Type::Unknown(name.clone()));
                types.named.insert(name, ty);
            }
        }
    }
}

/// Records the struct `st` as `name`. One whose fields the table cannot lay out (`A_tile
/// a[2];`, an alias of a class template's instance) is laid out by the analysis, as a class
/// template without parameters is; a class template's layout always is.
fn register_struct(types: &mut TypeTable, name: &str, st: &StructType, text: &SpanText<'_>) {
    let ty = struct_type(types, st);
    let header = match (types.template_headers.get(name), &ty) {
        (Some(h), _) => Some(h.clone()),
        (None, Type::Unknown(_)) => Some(crate::front::prepared::TemplateHeader {
            span: 0..0,
            params: Vec::new(),
        }),
        _ => None,
    };
    types.named.insert(name.to_string(), ty);
    if let Some(header) = header {
        let template = crate::analysis::types::ClassTemplate {
            tag: name.to_string(),
            header,
            definition: st.clone(),
            call_extents: call_extents(st, text),
        };
        types
            .class_templates
            .insert(name.to_string(), Rc::new(template));
    }
}

/// The structs defined inside `outer`'s body (`struct G { struct P { ... }; P p; };`), each
/// recorded as `G::P` (`G__P`) is written outside, before `outer` is laid out. Returns the
/// tags also recorded alone for `outer`'s body to name (`P p;`), which were not names before.
fn register_nested_structs(
    types: &mut TypeTable,
    outer: &str,
    st: &StructType,
    depth: usize,
    text: &SpanText<'_>,
) -> Vec<String> {
    let mut bare = Vec::new();
    if depth >= crate::limits::MAX_STATIC_MEMBER_NESTING {
        return bare;
    }
    for field in st.declarations.iter().flatten() {
        let StructDeclaration::Field(f) = &field.node else {
            continue;
        };
        for spec in &f.node.specifiers {
            if let SpecifierQualifier::TypeSpecifier(ts) = &spec.node
                && let TypeSpecifier::Struct(inner) = &ts.node
                && let (Some(tag), Some(_)) = (&inner.node.identifier, &inner.node.declarations)
            {
                let tag = tag.node.name.as_str();
                let nested = register_nested_structs(types, tag, &inner.node, depth + 1, text);
                register_struct(types, &format!("{outer}__{tag}"), &inner.node, text);
                for name in nested {
                    types.named.remove(&name);
                }
                if !types.named.contains_key(tag) {
                    let ty = types.named[&format!("{outer}__{tag}")].clone();
                    types.named.insert(tag.to_string(), ty);
                    bare.push(tag.to_string());
                }
            }
        }
    }
    bare
}

/// The type a typedef's declarator makes of `base`: itself, or an array of it
/// (`typedef float row[32];`, `using grid = cell[2][4];`) when every extent is a literal.
/// `None` for a pointer, a function, or an extent that is not a literal.
fn typedef_type(base: &Type, d: &Declarator) -> Option<Type> {
    if d.derived.is_empty() {
        return Some(base.clone());
    }
    if !matches!(d.kind.node, DeclaratorKind::Identifier(_)) || base.size().is_none() {
        return None;
    }
    let mut extents = Vec::new();
    for x in &d.derived {
        let DerivedDeclarator::Array(a) = &x.node else {
            return None;
        };
        let (lang_c::ast::ArraySize::VariableExpression(e)
        | lang_c::ast::ArraySize::StaticExpression(e)) = &a.node.size
        else {
            return None;
        };
        extents.push(u32::try_from(extent_value(e, &|_| None)?).ok()?);
    }
    Some(crate::analysis::types::array_of(base.clone(), &extents))
}

pub fn declarator_name(d: &Declarator) -> Option<String> {
    match &d.kind.node {
        DeclaratorKind::Identifier(id) => Some(id.node.name.clone()),
        DeclaratorKind::Declarator(inner) => declarator_name(&inner.node),
        DeclaratorKind::Abstract => None,
    }
}

fn declarator_name_span(item: &ParsedItem, d: &Declarator) -> Option<Range<usize>> {
    match &d.kind.node {
        DeclaratorKind::Identifier(id) => Some(item.span(id.span)),
        DeclaratorKind::Declarator(inner) => declarator_name_span(item, &inner.node),
        DeclaratorKind::Abstract => None,
    }
}

/// Whether a declarator, or one nested in it, has an array dimension with a size.
fn has_sized_array(d: &Declarator) -> bool {
    let sized = d.derived.iter().any(|x| {
        matches!(&x.node, DerivedDeclarator::Array(a)
            if !matches!(a.node.size, lang_c::ast::ArraySize::Unknown))
    });
    sized
        || matches!(&d.kind.node, DeclaratorKind::Declarator(inner) if has_sized_array(&inner.node))
}

/// The literal extent of the last array dimension a declarator writes (`(*x)[4]`: 4).
fn literal_extent(d: &Declarator) -> Option<i64> {
    let own = d.derived.iter().rev().find_map(|x| match &x.node {
        DerivedDeclarator::Array(a) => match &a.node.size {
            lang_c::ast::ArraySize::VariableExpression(e)
            | lang_c::ast::ArraySize::StaticExpression(e) => extent_value(e, &|_| None),
            _ => None,
        },
        _ => None,
    });
    own.or_else(|| match &d.kind.node {
        DeclaratorKind::Declarator(inner) => literal_extent(&inner.node),
        _ => None,
    })
}

fn function_params(
    types: &TypeTable,
    d: &Declarator,
    is_pack: &dyn Fn(&Declarator) -> bool,
    default: &dyn Fn(&Declarator) -> Option<String>,
) -> Vec<Param> {
    let mut out = Vec::new();
    for derived in &d.derived {
        if let DerivedDeclarator::Function(f) = &derived.node {
            for (index, p) in f.node.parameters.iter().enumerate() {
                let Some(decl) = &p.node.declarator else {
                    continue;
                };
                let Some(name) = declarator_name(&decl.node) else {
                    continue;
                };
                let mut ty = base_type(types, &p.node.specifiers);
                for derived in &decl.node.derived {
                    if matches!(
                        derived.node,
                        DerivedDeclarator::Pointer(_) | DerivedDeclarator::Array(_)
                    ) {
                        ty = Type::Pointer(Box::new(ty));
                    }
                }
                out.push(Param {
                    name,
                    ty,
                    index,
                    spells_row_length: has_sized_array(&decl.node),
                    extent: literal_extent(&decl.node),
                    pack: is_pack(&decl.node),
                    default: default(&decl.node),
                });
            }
        }
    }
    out
}
