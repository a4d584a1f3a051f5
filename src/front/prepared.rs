//! What the front end found in a file: the text lang-c parses, the map back to the file,
//! and the facts later stages look up (macros, launches, templates, classes, headers).

use crate::front::lex::{Comment, Token};
use crate::front::macros::MacroTable;
use crate::front::source_map::SourceMap;
pub use crate::front::template_header::{TemplateHeader, TemplateParam};
use std::collections::HashMap;
use std::ops::Range;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Keyword {
    Global,
    Device,
    Host,
    Shared,
    Constant,
    Constexpr,
    Other,
}

/// A kernel launch `name<<<grid, block, smem, stream>>>(...)`.
#[derive(Clone, Debug)]
pub struct Launch {
    pub kernel: String,
    /// Explicit template arguments, `k<16, float><<<...>>>`, as written.
    pub template_args: Vec<String>,
    /// The configuration arguments between `<<<` and `>>>`, as spans.
    pub config: Vec<Range<usize>>,
    /// From the kernel name to the closing `>>>`.
    pub span: Range<usize>,
    /// Its block, template arguments and kernel arguments, evaluated where it stands: one
    /// per run of its host function (a host template runs per instantiation); none for a
    /// launch in device code.
    pub values: Vec<crate::front::host_values::LaunchValues>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChunkKind {
    /// A `__global__` or `__device__` function definition.
    DeviceFunction { kernel: bool },
    /// A host-only function definition: not parsed, only scanned for launch sites.
    HostFunction,
    /// Anything else at file scope ending in `;`: declarations, structs, typedefs.
    Declaration,
}

/// One top-level item, parsed by lang-c on its own.
#[derive(Clone, Debug)]
pub struct Chunk {
    pub span: Range<usize>,
    pub kind: ChunkKind,
    /// Indices of its first and one-past-last token in `Prepared::tokens`.
    pub tokens: Range<usize>,
    /// The namespace it is declared in, `a__b` for `namespace a::b` (empty: global).
    pub namespace: String,
    /// Read only for the constants device code computes with (a `constexpr` function that
    /// is not `__device__`): what of it cannot be read is not reported, as it cannot touch
    /// shared memory.
    pub quiet: bool,
    /// Ranges inside `span` left out of this chunk's parse: the methods of a class that
    /// are read as chunks of their own.
    pub holes: Vec<Range<usize>>,
    /// A method's template parameters (its class's, then its own): the header is not
    /// right before the method, as it is for a function at file scope.
    pub template: Option<TemplateHeader>,
    /// The name reports give a method that C cannot spell (`Functor::operator()`).
    pub display_name: Option<String>,
}

/// A template that names text: an alias template (`template <int R, int C> using tile_f =
/// tile<float, R, C>;`, whose instance `tile_f<32, 32>` names the type) or a variable template
/// (`template <typename T> constexpr int DIM = sizeof(T) == 1 ? 32 : 16;`, whose instance
/// `DIM<float>` is the value), with the parameters replaced by the arguments.
#[derive(Clone, Debug)]
pub struct TemplateText {
    pub name: String,
    pub header: TemplateHeader,
    /// The aliased type or the initializer, as written, whitespace collapsed.
    pub text: String,
}

/// `template <typename T> concept all = ...;` in namespace `kittens__ducks__rt`.
#[derive(Clone, Debug)]
pub struct ConceptDef {
    pub name: String,
    /// `a__b`, empty for the global namespace.
    pub namespace: String,
    /// The parameter the body tests (`T`).
    pub param: String,
    /// The constraint expression, whitespace collapsed.
    pub body: String,
}

/// A region the front end or the parser could not handle.
#[derive(Clone, Debug)]
pub struct Skipped {
    pub span: Range<usize>,
    pub reason: String,
}

/// The front end's output. Offsets in it are offsets of `text` (the expanded text), except
/// where a field says "file": `map` turns the former into the latter.
#[derive(Debug, Default)]
pub struct Prepared {
    /// The file as written.
    pub source: String,
    /// The expanded text with CUDA C++ rewritten to C of the same length: what lang-c parses.
    pub text: String,
    /// The expanded text as the preprocessor left it, before lowering (template arguments
    /// still written); kept for the checked file only, empty for its headers.
    pub expanded: String,
    /// From `text` to the file.
    pub map: SourceMap,
    /// Where each line of the file starts.
    pub source_lines: Vec<usize>,
    /// The tokens of `text`; a header's are lexed when it is lowered.
    pub tokens: Vec<Token>,
    /// The file's comments (file offsets).
    pub comments: Vec<Comment>,
    /// The macros in force, by file offset.
    pub macros: MacroTable,
    pub keywords: Vec<(Keyword, usize)>,
    pub launches: Vec<Launch>,
    pub chunks: Vec<Chunk>,
    pub typenames: Vec<String>,
    /// The type names a declaration introduces (classes, typedefs, aliases, template type
    /// parameters), here and in the headers: a name used as a type and declared nowhere is
    /// one the host sets when it compiles the kernel (`-DDATA_TYPE=float` at run time).
    pub declared_types: Vec<String>,
    /// The element type of each `__shared__` declaration that names a type by one word (or
    /// each one-word type argument of a class template instance it names), by the
    /// declaration's offset.
    pub shared_element_types: Vec<(usize, String)>,
    /// Arrays declared `__shared__` at file or namespace scope, here and in the headers.
    pub file_shared_names: Vec<String>,
    pub templates: Vec<TemplateHeader>,
    /// `#include "x"` directives with their file span.
    pub includes: Vec<(String, Range<usize>)>,
    /// The includes written inside a namespace or a class, with that scope.
    pub include_scopes: Vec<crate::front::include_scopes::IncludeScope>,
    /// Explicit template arguments at calls, `f<16, float>(...)`, by the callee's offset.
    pub template_calls: Vec<(usize, Vec<String>)>,
    /// Host code's calls with explicit template arguments, with their values (see
    /// `front::host_templates`): what this file instantiates of a header's host templates.
    pub host_template_calls: Vec<crate::front::host_values::TemplateCall>,
    /// Where `auto` stood, spelled `int` for lang-c: a variable declared `auto` and given a
    /// pointer into shared memory is that pointer.
    pub auto_types: Vec<usize>,
    /// Braced lists in an expression (`f(x, {a, b})`, `t[{r, c}]`, `return {a, b};`), spelled
    /// `(a, b)` for lang-c, by the range of their elements: the value is an aggregate, not
    /// the last element, and the analyzer reads it as such.
    pub braced_lists: Vec<(usize, usize)>,
    /// Values of class type written `T{...}`, spelled `0` for lang-c, by offset (in offset
    /// order), with the type as written: a value no index can use and whose lanes nothing
    /// says, not the constant the spelling reads as; a CuTe type's value is what CuTe says
    /// (`Shape<_8, _64>{}`, `typename KT::SmemLayout{}`).
    pub class_values: Vec<(usize, String)>,
    /// The names a structured binding declares (`auto [a, b] = f();`, spelled `int a, b = f();`
    /// for lang-c), by offset: each is an element of an object banklint does not take apart,
    /// one the warp shares when the whole is.
    pub structured_bindings: Vec<usize>,
    /// Named lambdas lifted as device functions (see `front::lambdas`).
    pub lambdas: Vec<Lambda>,
    /// Range-based `for` loops over a braced list, by the offset of `for` (see
    /// `front::lower_range_for`).
    pub range_fors: Vec<usize>,
    /// `sizeof...`, function parameter packs, expansions and folds (see `front::lower_packs`).
    pub packs: crate::front::lower_packs::PackSites,
    /// Methods and constructors of classes that keep pointers (see `front::methods`).
    pub methods: Vec<Method>,
    /// Functions that return a reference (`T &at(int i)`, a pointer once lowered): their
    /// `return s[i];` names the element, it does not load it.
    pub reference_returns: Vec<Range<usize>>,
    /// The data members of those classes, by class.
    pub class_fields: Vec<(String, Vec<String>)>,
    /// Of those, the members whose type names a class, by class: (field, type as written).
    pub object_fields: Vec<(String, Vec<(String, String)>)>,
    /// Constructor arguments of declarations, `allocator al((int *)&smem[0]);`, blanked for
    /// lang-c: the arguments as written, by the offset of the declarator.
    pub constructor_args: Vec<(usize, String)>,
    /// Braced initializers blanked for lang-c (`args a{common, n, *p};`): the elements as
    /// written, by the offset of the declarator. The object may refer to what they name.
    pub braced_initializers: Vec<(usize, String)>,
    /// Non-const reference parameters of the functions declared or defined here, by the
    /// function's unqualified name and the parameter's position: a call of one banklint does
    /// not follow may write the variable it is given there.
    pub reference_params: Vec<(String, usize)>,
    /// Default arguments of function parameters (`int arch = 900`), by where the
    /// parameter's name starts, as written: lowering blanks them (C has none).
    pub default_arguments: Vec<(usize, String)>,
    /// Aggregates written `class` (spelled `union` for lang-c, laid out as structs).
    pub class_names: Vec<String>,
    /// Primary class templates, by tag, with their parameters: `sv<float, 64>` is laid out
    /// with them bound (see `analysis::class_templates`).
    pub class_templates: Vec<(String, TemplateHeader)>,
    /// Static methods of class template specializations, by the method's range: the
    /// specialization's written arguments (`<16, 4>`, `<T *>`) and its own parameters, which
    /// choose among a call's overloads (see `analysis::interp::overloads`).
    pub specialized_methods: Vec<(Range<usize>, Vec<String>, Vec<String>)>,
    /// Explicit specializations of function templates (`template <> void store<16>(...)`),
    /// by the definition's range, with the arguments they write: a call `store<16>(...)`
    /// runs the one its arguments name.
    pub explicit_specializations: Vec<(Range<usize>, Vec<String>)>,
    /// Calls through a class template, `group<4>::load<T>(...)`, by the offset of the joined
    /// name: how many of the template arguments recorded there are the class's.
    pub class_scoped_calls: Vec<(usize, usize)>,
    /// Classes declared with an alignment (`struct alignas(16) P`), by tag: a copy of the
    /// whole object is one access of up to 16 bytes only when the class is that aligned.
    pub class_alignments: Vec<(String, u32)>,
    /// Local `#include "..."` lines whose file was not found (file spans).
    pub missing_includes: Vec<(String, Range<usize>)>,
    /// Local headers that were followed, with what their front end found (lowered only when
    /// the file has device code, see `device_code`).
    pub headers: Vec<(String, std::sync::Arc<Prepared>)>,
    /// Every local header followed, preprocessed, by the name written and the path read.
    pub pending: Vec<(String, String, std::sync::Arc<PendingHeader>)>,
    /// Whether the file's own expanded text has code banklint analyzes by itself (a kernel,
    /// `__shared__`, a device function or variable outside class and function bodies). A file
    /// without any has nothing to analyze, and its headers are read for their macros only.
    pub device_code: bool,
    /// Classes that hand out an `extern __shared__` array (NVIDIA's `SharedMemory<T>`):
    /// calling one yields a pointer to dynamic shared memory. Their definitions are not parsed.
    pub shared_memory_classes: Vec<String>,
    /// The `extern __shared__` array each of those classes (or specialization) declares.
    pub shared_memory_arrays: Vec<WrapperArray>,
    pub skipped: Vec<Skipped>,
    /// File regions that conditional compilation leaves out (`#if 0` ... `#endif`), in order.
    pub inactive: Vec<Range<usize>>,
    /// `typedef`s inside class templates and their specializations (this file's and its
    /// headers'): `template <> struct vec4<float> { typedef float4 Type; };`.
    pub member_typedefs: Vec<MemberTypedef>,
    /// C++ casts, by the offset of the marker call written for them, with the type as
    /// written (see `casts`).
    pub casts: Vec<(usize, String)>,
    /// File-scope integer constants host code sees (this file's and its headers').
    pub host_constants: Vec<(String, i64)>,
    /// `using NAME = TYPE;`, as written.
    pub aliases: Vec<(String, String)>,
    /// Alias templates (this file's and its headers').
    pub alias_templates: Vec<TemplateText>,
    /// Variable templates (this file's and its headers').
    pub variable_templates: Vec<TemplateText>,
    /// Where the condition of each `if constexpr` starts, in text order.
    pub constexpr_ifs: Vec<usize>,
    /// Fields of class templates declared with a class template instance (`base<T, L>
    /// tiles[2];`): (class tag, field, type as written), this file's and its headers'.
    pub template_fields: Vec<(String, String, String)>,
    /// Concept definitions (this file's and its headers').
    pub concepts: Vec<ConceptDef>,
    /// Those of `aliases` written in a function body, by offset: they may name the
    /// function's template parameters, so each instantiation resolves them anew.
    pub local_aliases: Vec<(usize, String, String)>,
    /// Static data members with a value in their class (`static constexpr int size = 4;`)
    /// and enumerators declared in a class (`enum { THREADS = N };`).
    pub static_members: Vec<StaticMember>,
    /// The base classes of each class that has some (`struct K : public Base<N>`).
    pub class_bases: Vec<ClassBases>,
    /// Dependent member types written `typename vec4<T>::Type`, each rewritten in place to
    /// one identifier of the same length (`vec4_T___Type`) that the analysis resolves once `T`
    /// is bound.
    pub dependent_types: Vec<DependentType>,
}

/// `typedef TYPE MEMBER;` inside `struct CLASS` (the primary template, `args` `None`) or
/// `struct CLASS<ARGS>` (a specialization).
#[derive(Clone, Debug, PartialEq)]
pub struct MemberTypedef {
    pub class: String,
    pub args: Option<Vec<String>>,
    /// The template parameters of the class or specialization it is in (a partial
    /// specialization's `args` name them).
    pub params: Vec<String>,
    pub member: String,
    pub ty: String,
}

/// The `extern __shared__` array that a shared-memory wrapper class hands out:
/// `s_float` in `template <> struct SharedMemory<float> { ... }`.
#[derive(Clone, Debug, PartialEq)]
pub struct WrapperArray {
    pub class: String,
    /// The specialization's template arguments as written; `None` for the primary template.
    pub args: Option<Vec<String>>,
    pub array: String,
    /// The file it is declared in, as included from the analyzed file (`""`: that file).
    pub file: String,
    /// 1-based line of the array's name.
    pub line: usize,
}

/// `static constexpr int MEMBER = VALUE;` in `struct CLASS`: `CLASS::MEMBER` (spelled
/// `CLASS__MEMBER` in the text lang-c reads) is VALUE.
#[derive(Clone, Debug, PartialEq)]
pub struct StaticMember {
    pub class: String,
    /// A specialization's arguments as written (`None`: the primary template or a class).
    pub args: Option<Vec<String>>,
    pub member: String,
    pub value: String,
    /// The parameters of the class template it belongs to (`ElementType` of
    /// `template <class ElementType> struct Packed128`), which `value` may name.
    pub params: Vec<String>,
}

/// The base classes of `class` (a specialization's with its `args`), as written.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassBases {
    pub class: String,
    pub args: Option<Vec<String>>,
    pub params: Vec<String>,
    pub bases: Vec<String>,
}

/// `typename CLASS<ARGS>::MEMBER`, spelled `name` in the text lang-c reads.
#[derive(Clone, Debug, PartialEq)]
pub struct DependentType {
    pub name: String,
    pub class: String,
    pub args: Vec<String>,
    pub member: String,
}

impl Prepared {
    /// The type a value of class type written `T{...}` at `at` was written with.
    pub fn class_value_at(&self, at: usize) -> Option<&str> {
        let k = self.class_values.partition_point(|(o, _)| *o < at);
        (self.class_values.get(k))
            .filter(|(o, _)| *o == at)
            .map(|(_, t)| t.as_str())
    }

    /// The `local_aliases` written inside `body` (recorded in text order).
    pub fn local_aliases_in(&self, body: &Range<usize>) -> &[(usize, String, String)] {
        let from = (self.local_aliases).partition_point(|(at, _, _)| *at < body.start);
        let to = (self.local_aliases).partition_point(|(at, _, _)| *at < body.end);
        &self.local_aliases[from..to.max(from)]
    }

    /// The blanked CUDA words (`keywords`, in offset order) within a range of the text.
    pub fn keywords_in(&self, r: Range<usize>) -> impl Iterator<Item = &(Keyword, usize)> {
        let from = self.keywords.partition_point(|(_, at)| *at < r.start);
        self.keywords[from..]
            .iter()
            .take_while(move |(_, at)| *at < r.end)
    }

    /// Where the run of blanks (whitespace, blanked words) that ends at `at` starts.
    pub fn blank_before(&self, at: usize) -> usize {
        let b = self.text.as_bytes();
        let mut k = at.min(b.len());
        while k > 0 && b[k - 1].is_ascii_whitespace() {
            k -= 1;
        }
        k
    }

    /// The file range an expanded range stands for.
    pub fn source_span(&self, r: Range<usize>) -> Range<usize> {
        self.map.span(r)
    }

    /// The 1-based line of the file where an expanded offset's text is written.
    pub fn line_of(&self, offset: usize) -> usize {
        let at = self.map.start(offset);
        match self.source_lines.binary_search(&at) {
            Ok(i) => i + 1,
            Err(i) => i,
        }
    }

    /// The text written in the file for an expanded range, on one line and at most 60
    /// characters (for messages).
    pub fn written(&self, r: Range<usize>) -> String {
        let one_line = self.written_in_full(r);
        if one_line.chars().count() > 60 {
            let cut = one_line
                .char_indices()
                .nth(57)
                .map_or(one_line.len(), |(i, _)| i);
            format!("{}...", &one_line[..cut])
        } else {
            one_line
        }
    }

    /// The source text of `r` on one line, whitespace runs as one space, however long: for
    /// reading what the user wrote (a tag argument the lowering shortened), not for messages.
    pub fn written_in_full(&self, r: Range<usize>) -> String {
        let text = self.source.get(self.map.span(r)).unwrap_or("");
        text.split_whitespace().collect::<Vec<_>>().join(" ")
    }

    /// A copy of what preprocessing found (the expanded text not yet lowered), to lower.
    pub fn preprocessing_copy(&self) -> Prepared {
        Prepared {
            source: self.source.clone(),
            text: self.text.clone(),
            map: self.map.clone(),
            source_lines: self.source_lines.clone(),
            tokens: self.tokens.clone(),
            comments: self.comments.clone(),
            macros: self.macros.clone(),
            includes: self.includes.clone(),
            missing_includes: self.missing_includes.clone(),
            pending: self.pending.clone(),
            skipped: self.skipped.clone(),
            inactive: self.inactive.clone(),
            device_code: self.device_code,
            ..Prepared::default()
        }
    }

    /// Every header this file reaches, nested ones too, each once (depth first).
    pub fn nested_headers(&self) -> Vec<&std::sync::Arc<Prepared>> {
        fn walk<'a>(p: &'a Prepared, out: &mut Vec<&'a std::sync::Arc<Prepared>>) {
            for (_, h) in &p.headers {
                if !out.iter().any(|x| std::sync::Arc::ptr_eq(x, h)) {
                    out.push(h);
                    walk(h, out);
                }
            }
        }
        let mut out = Vec::new();
        walk(self, &mut out);
        out
    }

    /// What a header (or the includer's text before its `#include`), read from `path`,
    /// declares for this file: type names, member typedefs and shared-memory wrapper classes
    /// with their arrays. (Its macros take effect through the preprocessor.)
    pub fn absorb_declarations(&mut self, other: &Prepared, path: &str) {
        self.typenames.extend(other.typenames.iter().cloned());
        self.declared_types
            .extend(other.declared_types.iter().cloned());
        self.file_shared_names
            .extend(other.file_shared_names.iter().cloned());
        self.member_typedefs
            .extend(other.member_typedefs.iter().cloned());
        self.class_bases.extend(other.class_bases.iter().cloned());
        self.aliases.extend(other.aliases.iter().cloned());
        self.alias_templates
            .extend(other.alias_templates.iter().cloned());
        self.concepts.extend(other.concepts.iter().cloned());
        self.variable_templates
            .extend(other.variable_templates.iter().cloned());
        self.template_fields
            .extend(other.template_fields.iter().cloned());
        self.host_constants
            .extend(other.host_constants.iter().cloned());
        self.static_members
            .extend(other.static_members.iter().cloned());
        self.shared_memory_classes
            .extend(other.shared_memory_classes.iter().cloned());
        // Arrays declared in `other` itself are in `path`; nested ones keep their file.
        self.shared_memory_arrays
            .extend(other.shared_memory_arrays.iter().map(|a| WrapperArray {
                file: if a.file.is_empty() {
                    path.to_string()
                } else {
                    a.file.clone()
                },
                ..a.clone()
            }));
    }

    /// The type a dependent member type names once template type parameters are bound
    /// (`bound`: parameter name -> type as written): the matching specialization's typedef,
    /// else the primary template's.
    pub fn resolve_dependent(
        &self,
        dep: &DependentType,
        bound: &HashMap<String, String>,
    ) -> Option<String> {
        let subst = |t: &str| {
            bound
                .get(t.trim())
                .cloned()
                .unwrap_or_else(|| t.trim().to_string())
        };
        let args: Vec<String> = dep.args.iter().map(|a| subst(a)).collect();
        let same = |written: &[String]| {
            written.len() == args.len()
                && written
                    .iter()
                    .zip(&args)
                    .all(|(w, a)| w.split_whitespace().eq(a.split_whitespace()))
        };
        let of_class = self
            .member_typedefs
            .iter()
            .filter(|m| m.class == dep.class && m.member == dep.member);
        let found = of_class
            .clone()
            .find(|m| m.args.as_deref().is_some_and(same))
            .or_else(|| of_class.clone().find(|m| m.args.is_none()))?;
        Some(subst(&found.ty))
    }
}

/// A lambda defined in a function: the declaration's range.
#[derive(Clone, Debug, PartialEq)]
pub struct Lambda {
    pub span: std::ops::Range<usize>,
}

/// A method or constructor lifted as a device function, by the range of its definition.
#[derive(Clone, Debug, PartialEq)]
pub struct Method {
    pub class: String,
    /// The method's name; the class's for a constructor.
    pub name: String,
    pub constructor: bool,
    pub span: std::ops::Range<usize>,
    /// A constructor's member initializers, `: items(p), n(0)`: field and expression text.
    pub inits: Vec<(String, String)>,
}

/// A header preprocessed where it is included (its macros are what its includer needs
/// there), expanded, parsed and lowered the first time a file needs its declarations; shared
/// by every file of a run that includes it under the same definitions (see `header_cache`).
/// A file without device code needs only a header's macros: the expansion waits for the
/// lowering, which a spare thread may do meanwhile, off the file's own.
#[derive(Debug)]
pub struct PendingHeader {
    pub(super) preprocessed: Prepared,
    /// What the expansion starts from, and every macro it reads (`preprocessed` keeps only
    /// those the header can see, see `header_cache`), until the header is lowered.
    pub(super) expansion:
        std::sync::Mutex<Option<(crate::front::preprocess::Expansion, MacroTable)>>,
    /// The expansion's result, kept when something read the expanded text before the
    /// lowering did (see `shared_roots`).
    pub(super) expanded: std::sync::OnceLock<Expanded>,
    /// The expanded text, kept by the lowering for later readers.
    pub(super) expanded_text: std::sync::OnceLock<String>,
    pub(super) lowered: std::sync::OnceLock<std::sync::Arc<Prepared>>,
}

/// A header's expanded text, its map to the header, and the notes on expansions abandoned.
pub(super) type Expanded = (
    String,
    crate::front::source_map::SourceMap,
    Vec<crate::front::preprocess::Note>,
);
