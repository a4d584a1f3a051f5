//! Shared-memory budget: per kernel, the static `__shared__` bytes it declares or uses; the
//! `shared-capacity` check against the architecture's per-block limit; the L1/shared split
//! the file asks for (`cudaFuncSetCacheConfig`, `cudaDeviceSetCacheConfig`); and what a
//! padding fix costs in bytes and in blocks per SM.

use crate::analysis::extraction::Function;
use crate::analysis::interp::FileRuns;
use crate::bank::arch::Arch;
use crate::bank::capacity::{CacheConfig, blocks_per_sm_by_shared, max_static_per_block};
use std::collections::BTreeMap;
use std::ops::Range;

#[derive(Clone, Debug, PartialEq)]
pub struct KernelBudget {
    pub kernel: String,
    /// The kernel's name in its definition.
    pub span: Range<usize>,
    /// Static `__shared__` bytes: arrays declared in the kernel and what it calls, and
    /// file-scope arrays it uses. Template instantiations count their largest layout.
    pub static_bytes: u64,
    /// (array name, bytes), largest first.
    pub arrays: Vec<(String, u64)>,
    /// Arrays whose outermost extent is not a constant banklint evaluates: not counted, so
    /// `static_bytes` is a lower bound when this is not empty.
    pub sizes_unknown: Vec<String>,
    pub config: CacheConfig,
    /// Whether every analyzed launch of the kernel has a known block shape.
    pub shape_known: bool,
    /// Array ids counted, for fix costs.
    pub array_ids: Vec<usize>,
}

impl KernelBudget {
    pub fn limit(&self, arch: Arch) -> u64 {
        u64::from(max_static_per_block(arch))
    }

    pub fn over_limit(&self, arch: Arch) -> bool {
        self.static_bytes > self.limit(arch)
    }
}

/// What a padding fix does to each kernel that uses the array.
#[derive(Clone, Debug, PartialEq)]
pub struct FixCost {
    pub kernel: String,
    pub before: u64,
    pub after: u64,
    pub limit: u64,
    /// Blocks per SM as limited by shared memory, before and after (when the shape is known).
    pub blocks_per_sm: Option<(u32, u32)>,
}

impl FixCost {
    pub fn fits(&self) -> bool {
        self.after <= self.limit
    }
}

pub fn kernel_budgets(runs: &FileRuns, functions: &[Function], text: &str) -> Vec<KernelBudget> {
    let mut out = Vec::new();
    let configs = CacheConfigs::read(text);
    let mut runs_of: std::collections::HashMap<&str, Vec<&crate::analysis::interp::ShapeRun>> =
        std::collections::HashMap::new();
    for run in &runs.runs {
        runs_of.entry(run.function.as_str()).or_default().push(run);
    }
    for f in functions.iter().filter(|f| f.kernel) {
        let mut by_decl: BTreeMap<(usize, usize), (String, u64, usize)> = BTreeMap::new();
        let mut shape_known = true;
        let mut sizes_unknown = std::collections::BTreeSet::new();
        for run in runs_of.get(f.name.as_str()).into_iter().flatten() {
            shape_known &= run.shape.dims.is_some();
            for &id in &run.footprint {
                let entry = &runs.arrays[id];
                if entry.decl.is_extern || entry.byte_view_of.is_some() {
                    continue;
                }
                let Some(bytes) = entry.layout.as_ref().and_then(|l| l.total_bytes()) else {
                    sizes_unknown.insert(entry.decl.name.clone());
                    continue;
                };
                let key = (entry.decl.decl_span.start, entry.decl.name_span.start);
                let bytes = bytes.max(0) as u64;
                let slot = by_decl
                    .entry(key)
                    .or_insert((entry.decl.name.clone(), 0, id));
                if bytes >= slot.1 {
                    *slot = (entry.decl.name.clone(), bytes, id);
                }
            }
        }
        let mut arrays: Vec<(String, u64)> =
            by_decl.values().map(|(n, b, _)| (n.clone(), *b)).collect();
        arrays.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        let name_at = text[f.span.clone()]
            .find(&f.name)
            .map_or(f.span.start, |p| f.span.start + p);
        out.push(KernelBudget {
            kernel: f.name.clone(),
            span: name_at..name_at + f.name.len(),
            static_bytes: arrays.iter().map(|a| a.1).sum(),
            arrays,
            sizes_unknown: sizes_unknown.into_iter().collect(),
            config: configs.for_kernel(&f.name),
            shape_known,
            array_ids: by_decl.values().map(|v| v.2).collect(),
        });
    }
    out
}

/// The cache configurations a file asks for, read once: `cudaFuncSetCacheConfig(kernel, X)`
/// per kernel and `cudaDeviceSetCacheConfig(X)` for all.
#[derive(Default)]
pub struct CacheConfigs {
    device: Option<CacheConfig>,
    per_kernel: std::collections::HashMap<String, CacheConfig>,
}

impl CacheConfigs {
    pub fn read(text: &str) -> CacheConfigs {
        let mut out = CacheConfigs::default();
        for (name, is_func) in [
            ("cudaFuncSetCacheConfig", true),
            ("cudaDeviceSetCacheConfig", false),
        ] {
            let mut from = 0;
            while let Some(pos) = text[from..].find(name) {
                let start = from + pos + name.len();
                from = start;
                let Some(args) = text[start..].trim_start().strip_prefix('(') else {
                    continue;
                };
                let Some(close) = args.find(')') else {
                    continue;
                };
                let parts: Vec<&str> = args[..close].split(',').map(str::trim).collect();
                if is_func {
                    if let [target, config] = parts.as_slice()
                        && let Some(c) = CacheConfig::parse(config)
                    {
                        let target = target.trim_start_matches('&').trim();
                        let target = target.split('<').next().unwrap_or(target).trim();
                        let kernel = target.rsplit("::").next().unwrap_or(target);
                        out.per_kernel.insert(kernel.to_string(), c);
                    }
                } else if let [config] = parts.as_slice() {
                    out.device = CacheConfig::parse(config).or(out.device);
                }
            }
        }
        out
    }

    /// The kernel's own setting wins over the device's; default no preference.
    pub fn for_kernel(&self, kernel: &str) -> CacheConfig {
        self.per_kernel
            .get(kernel)
            .copied()
            .or(self.device)
            .unwrap_or_default()
    }
}

/// For each array, the kernels (indices into the budgets) whose footprint holds it.
pub struct BudgetIndex(std::collections::HashMap<usize, Vec<usize>>);

impl BudgetIndex {
    pub fn new(budgets: &[KernelBudget]) -> BudgetIndex {
        let mut map: std::collections::HashMap<usize, Vec<usize>> =
            std::collections::HashMap::new();
        for (k, b) in budgets.iter().enumerate() {
            for &a in &b.array_ids {
                map.entry(a).or_default().push(k);
            }
        }
        BudgetIndex(map)
    }
}

/// The cost of padding `array` by `bytes_added` for every kernel that uses it.
pub fn fix_costs(
    budgets: &[KernelBudget],
    index: &BudgetIndex,
    array: usize,
    bytes_added: i64,
    arch: Arch,
) -> Vec<FixCost> {
    index
        .0
        .get(&array)
        .into_iter()
        .flatten()
        .map(|&k| &budgets[k])
        .map(|b| {
            let before = b.static_bytes;
            let after = before + bytes_added.max(0) as u64;
            let blocks = |bytes: u64| {
                blocks_per_sm_by_shared(arch, b.config, u32::try_from(bytes).unwrap_or(u32::MAX))
            };
            FixCost {
                kernel: b.kernel.clone(),
                before,
                after,
                limit: b.limit(arch),
                blocks_per_sm: b.shape_known.then(|| (blocks(before), blocks(after))),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_the_cache_configuration() {
        let text = "void h() { cudaDeviceSetCacheConfig(cudaFuncCachePreferShared);\n cudaFuncSetCacheConfig(k, cudaFuncCachePreferL1); }";
        let configs = CacheConfigs::read(text);
        assert_eq!(configs.for_kernel("k"), CacheConfig::PreferL1);
        assert_eq!(configs.for_kernel("other"), CacheConfig::PreferShared);
        assert_eq!(
            CacheConfigs::read("").for_kernel("k"),
            CacheConfig::PreferNone
        );
    }
}
