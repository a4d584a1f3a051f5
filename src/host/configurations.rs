//! Which configurations of a function are analyzed when it has more than
//! `limits::MAX_CONFIGURATIONS` (a kernel instantiated per type and size by a registration
//! macro): a spread that gives each value, and each pair of values, of its template
//! parameters, block shape and arguments a configuration where it can.

use crate::analysis::interp::BlockShape;

/// At most `n` of `shapes`, chosen greedily so that as many as possible of the values each
/// template parameter, block shape, argument and assumed type takes, and of the pairs of
/// them that occur, appear in one of them (the earliest shape wins a tie); then the
/// earliest others, up to `n`.
pub fn spread(shapes: Vec<BlockShape>, n: usize) -> Vec<BlockShape> {
    let facets = |s: &BlockShape| -> Vec<String> {
        // A type argument banklint has no layout for (`Traits<fp16, 768, 1, 4>`, declared in
        // an includer's header) still picks the code paths: it is spread like a known one.
        let type_args = || s.template_args.iter().chain(&s.unknown_type_args);
        let mut out: Vec<String> = type_args()
            .map(|(k, v)| format!("T {k}={v}"))
            .chain(s.arguments.iter().map(|(k, v)| format!("A {k}={v}")))
            .chain(s.assumed_types.iter().map(|(k, v)| format!("U {k}={v}")))
            .collect();
        // A traits class argument (`KT = Traits<half, 1024, 4>`) takes as many values as it
        // has instantiations; what it changes are its own arguments, each a value to spread
        // too (the element type, the size).
        for (k, v) in type_args() {
            if let Some((_, args)) = crate::front::names::split_template_args(v) {
                out.extend(
                    (args.iter().enumerate()).map(|(i, a)| format!("T {k}<{i}>={}", a.trim())),
                );
            }
        }
        out.push(format!("D {:?}", s.dims));
        out
    };
    // Values and pairs of values: a branch on two parameters (`if (L2) ... DIMS / 4`) is
    // reached in some configuration when every pair that occurs is in one.
    let all: Vec<Vec<String>> = shapes
        .iter()
        .map(|s| {
            let one = facets(s);
            let mut both = one.clone();
            for (i, a) in one.iter().enumerate() {
                for b in &one[i + 1..] {
                    both.push(format!("{a} & {b}"));
                }
            }
            both
        })
        .collect();
    let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let mut chosen: Vec<usize> = Vec::new();
    while chosen.len() < n {
        let best = (0..shapes.len())
            .filter(|k| !chosen.contains(k))
            .map(|k| {
                let new = all[k].iter().filter(|f| !seen.contains(f.as_str())).count();
                (new, std::cmp::Reverse(k))
            })
            .max();
        match best {
            Some((new, std::cmp::Reverse(k))) if new > 0 => {
                seen.extend(all[k].iter().map(String::as_str));
                chosen.push(k);
            }
            _ => break,
        }
    }
    for k in 0..shapes.len() {
        if chosen.len() >= n {
            break;
        }
        if !chosen.contains(&k) {
            chosen.push(k);
        }
    }
    chosen.sort_unstable();
    shapes
        .into_iter()
        .enumerate()
        .filter(|(k, _)| chosen.contains(k))
        .map(|(_, s)| s)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spread_of_configurations_covers_every_value() {
        // 16 configurations, `A` in {0, 1} (the first 8 all 0) and `B` in 0..8: 8 chosen
        // include both values of `A` and every value of `B`, where the first 8 would not.
        let shapes: Vec<BlockShape> = (0..16)
            .map(|k| BlockShape {
                template_args: vec![
                    ("A".into(), (k / 8).to_string()),
                    ("B".into(), (k % 8).to_string()),
                ],
                ..crate::host::launches::fallback_shape_for_tests()
            })
            .collect();
        let chosen = spread(shapes, 8);
        assert_eq!(chosen.len(), 8);
        let values = |name: &str| -> std::collections::BTreeSet<String> {
            chosen
                .iter()
                .flat_map(|s| &s.template_args)
                .filter(|(n, _)| n == name)
                .map(|(_, v)| v.clone())
                .collect()
        };
        assert_eq!(values("A").len(), 2);
        assert_eq!(values("B").len(), 8);
    }

    #[test]
    fn a_traits_argument_is_spread_over_its_own_arguments() {
        // 24 instantiations of `KT = Tr<E, S>`: the first 12 all `float`. Four chosen spread
        // the element types (three) as well as the sizes, where the first four would not.
        let types = ["float", "half", "double"];
        let shapes: Vec<BlockShape> = (0..24)
            .map(|k| BlockShape {
                template_args: vec![(
                    "KT".into(),
                    format!("Tr<{}, {}>", types[(k / 12 + k % 2 * (k / 12)) % 3], k % 12),
                )],
                ..crate::host::launches::fallback_shape_for_tests()
            })
            .collect();
        let element = |s: &BlockShape| {
            s.template_args[0]
                .1
                .split(['<', ','])
                .nth(1)
                .map(str::to_string)
        };
        let all: std::collections::BTreeSet<Option<String>> = shapes.iter().map(element).collect();
        assert_eq!(all.len(), 3);
        let chosen = spread(shapes, 4);
        let spread_types: std::collections::BTreeSet<Option<String>> =
            chosen.iter().map(element).collect();
        assert_eq!(
            spread_types,
            all,
            "{:?}",
            chosen.iter().map(|s| &s.template_args).collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_traits_argument_of_unknown_layout_is_spread_too() {
        // 20 registrations of `KT = Traits<S, WN>` whose class banklint does not lay out (it
        // names no type banklint knows): the first 12 have `WN = 1`. Four chosen reach
        // `WN = 4` as well, where the first four would not.
        let shapes: Vec<BlockShape> = (0..20)
            .map(|k| BlockShape {
                unknown_type_args: vec![(
                    "KT".into(),
                    format!(
                        "Traits<{}, {}>",
                        256 * (k % 6 + 1),
                        if k < 12 { 1 } else { 4 }
                    ),
                )],
                ..crate::host::launches::fallback_shape_for_tests()
            })
            .collect();
        let chosen = spread(shapes, 4);
        assert!(
            chosen
                .iter()
                .any(|s| s.unknown_type_args[0].1.ends_with(", 4>")),
            "{:?}",
            chosen
                .iter()
                .map(|s| &s.unknown_type_args)
                .collect::<Vec<_>>()
        );
    }
}
