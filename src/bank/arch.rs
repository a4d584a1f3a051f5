//! GPU architectures: nvcc's spelling (`sm_90`, `compute_35`), the bank-rule family each
//! compute capability follows, Kepler's bank mode, and each family's shared-memory limits.

use std::fmt;

/// The bank-rule families of `docs/BANK_RULES.md`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Family {
    /// 1.x (G80, GT200): 16 banks, half-warp requests, one broadcast word per step.
    Tesla,
    /// 2.x: 32 banks, multicast; 8-byte accesses per half-warp, 16-byte per quarter-warp.
    Fermi,
    /// 3.x: 32 banks of 8 bytes/clock, 4-byte or 8-byte addressing mode.
    Kepler,
    /// 5.x and later: 32 banks, phases of 32/16/8 lanes, the wide-load merge rule.
    Maxwell,
}

/// Kepler's shared-memory bank addressing mode (`cudaDeviceSetSharedMemConfig`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum BankMode {
    #[default]
    FourByte,
    EightByte,
}

impl BankMode {
    pub fn from_bytes(bytes: u32) -> Option<BankMode> {
        match bytes {
            4 => Some(BankMode::FourByte),
            8 => Some(BankMode::EightByte),
            _ => None,
        }
    }
}

/// A compute capability, e.g. 9.0 for `sm_90`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Arch {
    pub major: u32,
    pub minor: u32,
}

/// Compute capabilities nvcc has ever accepted as `sm_XX`.
pub const KNOWN_ARCHS: &[(u32, u32)] = &[
    (1, 0),
    (1, 1),
    (1, 2),
    (1, 3),
    (2, 0),
    (2, 1),
    (3, 0),
    (3, 2),
    (3, 5),
    (3, 7),
    (5, 0),
    (5, 2),
    (5, 3),
    (6, 0),
    (6, 1),
    (6, 2),
    (7, 0),
    (7, 2),
    (7, 5),
    (8, 0),
    (8, 6),
    (8, 7),
    (8, 9),
    (9, 0),
    (10, 0),
    (10, 1),
    (10, 3),
    (11, 0),
    (12, 0),
    (12, 1),
];

impl Arch {
    pub const DEFAULT: Arch = Arch { major: 9, minor: 0 };

    /// Parses nvcc spellings: `sm_90`, `sm_90a`, `compute_86`, `sm_120f`, or `9.0`.
    pub fn parse(text: &str) -> Result<Arch, String> {
        let t = text.trim().to_ascii_lowercase();
        let digits =
            if let Some(rest) = t.strip_prefix("sm_").or_else(|| t.strip_prefix("compute_")) {
                rest.trim_end_matches(['a', 'f'])
            } else if let Some((maj, min)) = t.split_once('.') {
                return match (maj.parse::<u32>(), min.parse::<u32>()) {
                    (Ok(major), Ok(minor)) => Arch::checked(major, minor, text),
                    _ => Err(unknown_arch(text)),
                };
            } else {
                t.as_str()
            };
        if digits.len() < 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
            return Err(unknown_arch(text));
        }
        let (maj, min) = digits.split_at(digits.len() - 1);
        match (maj.parse::<u32>(), min.parse::<u32>()) {
            (Ok(major), Ok(minor)) => Arch::checked(major, minor, text),
            _ => Err(unknown_arch(text)),
        }
    }

    fn checked(major: u32, minor: u32, text: &str) -> Result<Arch, String> {
        if KNOWN_ARCHS.contains(&(major, minor)) {
            Ok(Arch { major, minor })
        } else {
            Err(unknown_arch(text))
        }
    }

    pub fn family(self) -> Family {
        match self.major {
            1 => Family::Tesla,
            2 => Family::Fermi,
            3 => Family::Kepler,
            _ => Family::Maxwell,
        }
    }

    pub fn name(self) -> String {
        format!("sm_{}{}", self.major, self.minor)
    }

    /// Whether the rules used for this arch were measured or are assumed from 5.x-9.x.
    pub fn rules_are_assumed(self) -> bool {
        self.major >= 10
    }
}

impl fmt::Display for Arch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sm_{}{}", self.major, self.minor)
    }
}

fn unknown_arch(text: &str) -> String {
    let list: Vec<String> = KNOWN_ARCHS
        .iter()
        .map(|(a, b)| format!("sm_{a}{b}"))
        .collect();
    format!(
        "unknown GPU architecture `{text}` (expected one of {})",
        list.join(", ")
    )
}

/// What the bank engine needs to know about the target.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Target {
    pub arch: Arch,
    /// Only meaningful on 3.x; ignored elsewhere.
    pub bank_mode: BankMode,
}

impl Target {
    pub fn new(arch: Arch, bank_mode: BankMode) -> Target {
        Target { arch, bank_mode }
    }

    pub fn family(self) -> Family {
        self.arch.family()
    }

    pub fn banks(self) -> u32 {
        match self.family() {
            Family::Tesla => 16,
            _ => 32,
        }
    }

    /// Describes the target for reports: `sm_35 (8-byte bank mode)`.
    pub fn describe(self) -> String {
        match (self.family(), self.bank_mode) {
            (Family::Kepler, BankMode::FourByte) => format!("{} (4-byte bank mode)", self.arch),
            (Family::Kepler, BankMode::EightByte) => format!("{} (8-byte bank mode)", self.arch),
            _ => self.arch.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_nvcc_spellings() {
        assert_eq!(Arch::parse("sm_90").unwrap(), Arch { major: 9, minor: 0 });
        assert_eq!(Arch::parse("sm_90a").unwrap(), Arch { major: 9, minor: 0 });
        assert_eq!(
            Arch::parse("compute_35").unwrap(),
            Arch { major: 3, minor: 5 }
        );
        assert_eq!(
            Arch::parse("sm_120").unwrap(),
            Arch {
                major: 12,
                minor: 0
            }
        );
        assert_eq!(Arch::parse("sm_10").unwrap().family(), Family::Tesla);
        assert_eq!(Arch::parse("8.6").unwrap(), Arch { major: 8, minor: 6 });
        assert!(Arch::parse("sm_40").is_err());
        assert!(Arch::parse("banana").is_err());
        assert!(Arch::parse("sm_").is_err());
    }
}
