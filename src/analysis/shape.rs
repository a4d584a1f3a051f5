//! What one analysis of a function runs with: the block shape and where it came from, the
//! template and kernel arguments, and what was assumed where nothing said.

use std::ops::Range;

/// Where a block shape came from.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ShapeSource {
    /// A launch site, by its span.
    Launch(Range<usize>),
    /// A launch in the file that includes this one (see `include_context`), by file and line.
    IncluderLaunch {
        file: String,
        line: usize,
    },
    Annotation,
    Cli,
    /// No shape known: one warp, blockDim.x assumed a multiple of 32.
    Default,
}

impl ShapeSource {
    pub fn name(&self) -> &'static str {
        match self {
            ShapeSource::Launch(_) => "launch",
            ShapeSource::IncluderLaunch { .. } => "includer-launch",
            ShapeSource::Annotation => "annotation",
            ShapeSource::Cli => "cli",
            ShapeSource::Default => "default",
        }
    }
}

/// A launch's tensor-map arguments: parameter name, and the map's swizzle or why not known.
/// A known swizzle comes with the line of the host code that made the map.
pub type TensorMapArguments = Vec<(
    String,
    Result<(crate::bank::tma::TmaSwizzle, usize), String>,
)>;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct BlockShape {
    /// `None`: unknown, analyzed as one warp of a block whose x extent is a multiple of 32.
    pub dims: Option<[u32; 3]>,
    pub source: ShapeSource,
    /// Template arguments of this instantiation, by parameter name, as written.
    pub template_args: Vec<(String, String)>,
    /// Integer kernel arguments that are compile-time constants at the launch, by parameter.
    pub arguments: Vec<(String, i64)>,
    /// Tensor maps the launch passes, by parameter: the swizzle the host code gives each, or
    /// why it is not known (see `front::host_tensor_maps`).
    pub tensor_maps: TensorMapArguments,
    /// Values a `// banklint: args(n = 1024)` annotation gives the kernel's parameters that
    /// the launch does not fix.
    pub assumed: Vec<(String, i64)>,
    /// Type parameters no launch, call or annotation binds, bound here to a type of each
    /// element size the code could be used with (`T` -> `__half`, `float`, `double`).
    pub assumed_types: Vec<(String, String)>,
    /// Type arguments a launch wrote that name no type banklint knows (`scalar_t` of a
    /// dispatch macro, `config<256, 4>`), by parameter. Those whose size can matter are among
    /// `assumed_types`; every one still names its class for `C::MEMBER`.
    pub unknown_type_args: Vec<(String, String)>,
    /// Element types of the kernel's shared arrays that no declaration banklint reads
    /// introduces (the host defines them when it compiles the kernel at run time): bound in
    /// `assumed_types` to an opaque type of each size an element can have.
    pub undeclared_types: Vec<String>,
    /// The path analyzed: for branches on a warp-uniform unknown whose sides assign variables
    /// differently (`if (n > 0) stride = 32; else stride = 1;`), which side was taken.
    pub path: Vec<Decision>,
}

/// One side of a branch on a warp-uniform unknown, taken for a whole analysis; or, for a
/// loop whose trip count is unknown and after which values cycle through `choices` states
/// (two for double buffering, `STAGES` for a ring of stages), the trip count's residue.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Decision {
    /// Where the branch or loop is, in the expanded text (identifies it on every execution).
    pub at: usize,
    pub line: usize,
    /// The branch's condition as written; empty for a loop's trip count.
    pub condition: String,
    /// A branch: 0 is the true side, 1 the false one. A loop: the trip count modulo `choices`.
    pub choice: u32,
    /// 2 for a branch; a loop's cycle length.
    pub choices: u32,
}

impl Decision {
    /// A branch's side, decided true first.
    pub fn branch(at: usize, line: usize, condition: String) -> Decision {
        Decision {
            at,
            line,
            condition,
            choice: 0,
            choices: 2,
        }
    }

    /// A branch decided true (`choice` 0).
    pub fn taken(&self) -> bool {
        self.choice == 0
    }

    /// The trips of a loop, as a word: `even`, `odd`, or `3k + 1`.
    pub fn trips(&self) -> String {
        match (self.choices, self.choice) {
            (2, 0) => "even".to_string(),
            (2, _) => "odd".to_string(),
            (p, 0) => format!("{p}k"),
            (p, r) => format!("{p}k + {r}"),
        }
    }

    /// `` `n > 0` (line 12) true ``, `the loop at line 170 ran an odd number of trips`, or
    /// `the loop at line 170 ran 3k + 1 trips`.
    pub fn describe(&self) -> String {
        if self.condition.is_empty() {
            return match self.choices {
                2 => format!(
                    "the loop at line {} ran an {} number of trips",
                    self.line,
                    self.trips()
                ),
                _ => format!("the loop at line {} ran {} trips", self.line, self.trips()),
            };
        }
        let side = if self.taken() { "true" } else { "false" };
        format!("`{}` (line {}) {side}", self.condition, self.line)
    }
}

impl BlockShape {
    /// A shape with these dimensions and nothing else known: no template arguments, no
    /// kernel arguments, no assumptions.
    pub fn plain(dims: Option<[u32; 3]>, source: ShapeSource) -> BlockShape {
        BlockShape {
            dims,
            source,
            template_args: Vec::new(),
            arguments: Vec::new(),
            tensor_maps: Vec::new(),
            assumed: Vec::new(),
            assumed_types: Vec::new(),
            unknown_type_args: Vec::new(),
            undeclared_types: Vec::new(),
            path: Vec::new(),
        }
    }

    pub fn describe(&self) -> String {
        match self.dims {
            Some([x, y, 1]) => format!("({x}, {y})"),
            Some([x, y, z]) => format!("({x}, {y}, {z})"),
            None => "unknown (blockDim.x assumed a multiple of 32)".to_string(),
        }
    }

    /// `BLOCK = 16, T = float`, or empty.
    pub fn describe_template(&self) -> String {
        bindings(&self.template_args)
    }

    /// `width = 80, pitch = 384`, or empty.
    pub fn describe_arguments(&self) -> String {
        bindings(&self.arguments)
    }

    /// `n = 1024`, or empty: the annotated arguments.
    pub fn describe_assumed(&self) -> String {
        bindings(&self.assumed)
    }

    /// `T = float`, or empty: type parameters bound by assumption.
    pub fn describe_assumed_types(&self) -> String {
        bindings(&self.assumed_types)
    }

    /// Why the types in `assumed_types` are assumed.
    pub fn why_types_assumed(&self) -> String {
        let written: Vec<String> = self
            .unknown_type_args
            .iter()
            .filter(|(n, _)| self.assumed_types.iter().any(|(p, _)| p == n))
            .map(|(_, a)| format!("`{a}`"))
            .collect();
        if !self.undeclared_types.is_empty() {
            let names: Vec<String> = self
                .undeclared_types
                .iter()
                .map(|n| format!("`{n}`"))
                .collect();
            return format!(
                "{} {} declared nowhere banklint reads (a type the host sets when it compiles \
                 the kernel?)",
                names.join(", "),
                if names.len() == 1 { "is" } else { "are" }
            );
        }
        if written.is_empty() {
            return "nothing instantiates the template".to_string();
        }
        format!(
            "the launch's type argument {} is not a type banklint knows",
            written.join(", ")
        )
    }
}

/// `name = value, ...`.
fn bindings<V: std::fmt::Display>(pairs: &[(String, V)]) -> String {
    pairs
        .iter()
        .map(|(n, v)| format!("{n} = {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}
