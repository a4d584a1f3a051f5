//! Which machine operation a CUDA atomic function on shared memory compiles to, and so which
//! bank model prices it: read off nvcc 13.0's SASS for sm_90 (`hw/ATOMICS_AND_MATRIX_OPS.md`).
//! Pure functions of the call's name, the element type and how the call is used.

use crate::analysis::types::Type;
use crate::bank::engine::AtomicKind;

/// The atomic functions of the CUDA runtime, without their `_block` / `_system` scope suffix.
const FUNCTIONS: [&str; 11] = [
    "atomicAdd",
    "atomicSub",
    "atomicExch",
    "atomicMin",
    "atomicMax",
    "atomicInc",
    "atomicDec",
    "atomicCAS",
    "atomicAnd",
    "atomicOr",
    "atomicXor",
];

/// The function an atomic call names (`atomicAdd_block` -> `atomicAdd`), if it is one.
pub fn atomic_function(name: &str) -> Option<&'static str> {
    let base = name
        .strip_suffix("_block")
        .or_else(|| name.strip_suffix("_system"))
        .unwrap_or(name);
    FUNCTIONS.iter().copied().find(|f| *f == base)
}

/// How a call is used, which changes what nvcc emits for `atomicAdd(p, 1)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AtomicUse {
    /// The value argument is the constant 1.
    pub adds_one: bool,
    /// The returned old value is discarded (the call is a statement of its own).
    pub result_unused: bool,
}

/// The operation `function` (as [`atomic_function`] names it) performs on an element of type
/// `elem`, or why its cost is not known.
pub fn atomic_kind(function: &str, elem: &Type, usage: AtomicUse) -> Result<AtomicKind, String> {
    let Some(size) = elem.size() else {
        // Priced once the size is known; the access reports the unknown size itself.
        return Ok(AtomicKind::Rmw);
    };
    let float = elem.is_float();
    let vector = matches!(elem, Type::Record(_));
    let not_measured = |what: &str| {
        Err(format!(
            "`{function}` on {what} `{}` compiles to a compare-and-swap loop whose shared-memory cost was not measured",
            elem.name()
        ))
    };
    if vector || size == 2 {
        return not_measured(if vector {
            "the vector type"
        } else {
            "the 2-byte type"
        });
    }
    match (function, size) {
        ("atomicCAS", 4 | 8) => Ok(AtomicKind::Cas),
        ("atomicExch", 4 | 8) => Ok(AtomicKind::Rmw),
        ("atomicAdd", 4) if !float && usage.adds_one && usage.result_unused => {
            Ok(AtomicKind::Count)
        }
        ("atomicAdd", 4 | 8) if float || size == 8 => Ok(AtomicKind::CasLoop),
        ("atomicMin" | "atomicMax", _) if float => not_measured("the floating-point type"),
        ("atomicMin" | "atomicMax" | "atomicAnd" | "atomicOr" | "atomicXor", 8) => {
            Ok(AtomicKind::CasLoop)
        }
        ("atomicAdd" | "atomicSub" | "atomicInc" | "atomicDec", 4)
        | ("atomicMin" | "atomicMax" | "atomicAnd" | "atomicOr" | "atomicXor", 4)
            if !float =>
        {
            Ok(AtomicKind::Rmw)
        }
        _ => Err(format!(
            "`{function}` does not exist for `{}` ({size} bytes)",
            elem.name()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analysis::types::builtin;

    const STATEMENT: AtomicUse = AtomicUse {
        adds_one: false,
        result_unused: true,
    };
    const COUNT: AtomicUse = AtomicUse {
        adds_one: true,
        result_unused: true,
    };

    fn int() -> Type {
        Type::scalar("int", 4, false)
    }

    #[test]
    fn scope_suffixes_name_the_same_function() {
        assert_eq!(atomic_function("atomicAdd_block"), Some("atomicAdd"));
        assert_eq!(atomic_function("atomicCAS_system"), Some("atomicCAS"));
        assert_eq!(atomic_function("atomicAddition"), None);
    }

    #[test]
    fn histogram_increment_is_a_count_only_when_its_result_is_unused() {
        assert_eq!(
            atomic_kind("atomicAdd", &int(), COUNT),
            Ok(AtomicKind::Count)
        );
        let used = AtomicUse {
            result_unused: false,
            ..COUNT
        };
        assert_eq!(atomic_kind("atomicAdd", &int(), used), Ok(AtomicKind::Rmw));
        assert_eq!(
            atomic_kind("atomicAdd", &int(), STATEMENT),
            Ok(AtomicKind::Rmw)
        );
    }

    #[test]
    fn floating_point_and_64_bit_adds_are_cas_loops() {
        let float = Type::scalar("float", 4, true);
        let double = Type::scalar("double", 8, true);
        let u64 = Type::scalar("unsigned long long", 8, false);
        for t in [&float, &double, &u64] {
            assert_eq!(atomic_kind("atomicAdd", t, COUNT), Ok(AtomicKind::CasLoop));
        }
        assert_eq!(
            atomic_kind("atomicMax", &u64, STATEMENT),
            Ok(AtomicKind::CasLoop)
        );
        assert_eq!(
            atomic_kind("atomicExch", &u64, STATEMENT),
            Ok(AtomicKind::Rmw)
        );
        assert_eq!(
            atomic_kind("atomicExch", &float, STATEMENT),
            Ok(AtomicKind::Rmw)
        );
        assert_eq!(
            atomic_kind("atomicCAS", &u64, STATEMENT),
            Ok(AtomicKind::Cas)
        );
    }

    #[test]
    fn unmeasured_forms_say_so() {
        let half2 = builtin("__half2").unwrap();
        let half = builtin("__half").unwrap();
        assert!(
            atomic_kind("atomicAdd", &half2, STATEMENT)
                .unwrap_err()
                .contains("not measured")
        );
        assert!(atomic_kind("atomicCAS", &half, STATEMENT).is_err());
        assert!(atomic_kind("atomicInc", &Type::scalar("double", 8, true), STATEMENT).is_err());
    }
}
