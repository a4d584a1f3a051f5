//! The front end: source files in, parsed C items out.
//!
//! [`source`] loads a file; [`lex`] tokenizes; [`preprocess`] runs the directives and expands
//! macros ([`macros`]), recording a [`source_map`] back to the file; [`syntax`] parses the
//! expanded text with tree-sitter, [`items`] finds the top-level items in the tree and [`lower`]
//! rewrites their CUDA C++ into C of the same length ([`lambdas`]: named lambdas as functions;
//! [`methods`]: methods of classes that keep pointers; [`lower_names`]: names the grammar
//! misreads; [`lower_launches`]: the kernel launches it records), together driven by [`cuda`]
//! into a [`prepared`] file ([`template_header`]: template parameters; [`names`]: names known
//! without a declaration; [`header_cache`]: each header prepared once per run for the
//! definitions it sees, asked of an [`include_loader`]; [`spare_threads`]: headers lowered on
//! the idle cores); [`parse`] parses each item with lang-c ([`casts`] turns C++ casts into C
//! ones in its tree); and [`includes`] finds the files that include a file and reads headers
//! ([`project_headers`] finds those no `-I` names); [`host_code`] reads host functions as
//! programs to give each launch its values ([`host_values`]: what it computes and records;
//! [`host_launch_sites`]: what it records at a launch, `<<<...>>>` or a runtime-API call;
//! [`host_class_constants`]: a traits class's constants); [`annotation_syntax`] reads the
//! `banklint:` annotations in comments. [`limits_scan`] defuses input too deep to parse,
//! before anything recurses into it.

pub mod annotation_syntax;
pub mod casts;
pub mod class_members;
pub mod class_records;
pub mod concepts;
pub mod const_expr;
pub mod cuda;
pub mod header_cache;
pub mod host_class_constants;
pub mod host_classes;
pub mod host_code;
pub mod host_kernel_pointers;
pub mod host_launch_configs;
pub mod host_launch_sites;
pub mod host_scopes;
pub mod host_templates;
pub mod host_tensor_maps;
pub mod host_values;
pub mod include_loader;
pub mod include_scopes;
pub mod includes;
pub mod items;
pub mod lambdas;
pub mod lex;
pub mod limits_scan;
pub mod lower;
pub mod lower_launches;
pub mod lower_names;
pub mod lower_packs;
pub mod lower_range_for;
pub mod lower_templates;
pub mod macros;
pub mod methods;
pub mod names;
pub mod parse;
pub mod prepared;
pub mod preprocess;
pub mod project_headers;
pub mod shared_roots;
pub mod source;
pub mod source_map;
pub mod spare_threads;
pub mod syntax;
pub mod template_header;
pub mod template_records;
pub mod toolkit;
pub mod type_names;
pub mod unread_macros;
