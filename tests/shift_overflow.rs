//! The `shift-overflow` rule: a shift whose count reaches its operand's width is warned
//! about with the precedence explained and the parenthesized text; one in range, or on a
//! 64-bit value, is not. `explain` tells the measured story.

mod common;
use common::{banklint, temp_dir, write};

const KERNEL: &str = r#"#define LOG 5
#define PAD(n) ((n) >> LOG + (n) >> (2 * LOG))

__global__ void k(float *out, long long base)
{
    __shared__ float s[2048];
    int i = threadIdx.x * 32;
    s[i + PAD(i)] = out[0];
    s[threadIdx.x >> 3] = out[1];
    long long w = base;
    out[2] = (float)((w << 40) >> 40);
    int j = threadIdx.x;
    s[(j << j) & 1023] = out[3];
}

void launch(float *out)
{
    k<<<1, 32>>>(out, 0);
}
"#;

#[test]
fn a_shift_past_the_width_is_warned_with_the_reading_meant() {
    let dir = temp_dir("shift-overflow");
    write(&dir, "k.cu", KERNEL.as_bytes());
    let out = banklint(&dir, &["check", "k.cu", "--format", "json"]);
    let json = out.json();
    let warnings: Vec<&serde_json::Value> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "shift-overflow")
        .collect();
    let lines: Vec<u64> = warnings
        .iter()
        .map(|d| d["line"].as_u64().unwrap())
        .collect();
    // The padding macro (line 8) and `j << j` (line 13, counts up to 31 on 32 bits: in range
    // for lanes 0-31, so no warning). The 64-bit shifts by 40 (line 11) are in range.
    assert_eq!(lines, [8], "{}", out.stdout);
    let w = warnings[0];
    assert_eq!(w["severity"], "warning");
    // Lane 31: i = 992, count 5 + 992.
    assert_eq!(
        w["message"],
        "`>>` by a count of 997: the shifted value is 32 bits wide"
    );
    let notes: Vec<&str> = w["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap())
        .collect();
    assert!(
        notes.iter().any(|n| n.contains("the GPU clamps the count")),
        "{notes:?}"
    );
    assert!(
        notes
            .iter()
            .any(|n| n.contains("make the macro compute `((i) >> 5) + ((i) >> (2 * 5))`")),
        "{notes:?}"
    );
    // The clamped shift is analyzed, not unknown: padding 0, lane l at word 32 * l: 32-way.
    let access = json["accesses"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["line"] == 8)
        .unwrap();
    assert_eq!(access["status"], "analyzed");
    assert_eq!(access["conflict_ways"], 32);
}

#[test]
fn explain_tells_the_measured_story() {
    let dir = temp_dir("shift-overflow-explain");
    let out = banklint(&dir, &["explain", "shift-overflow"]);
    assert_eq!(out.code, Some(0));
    for figure in ["398", "223", "150", "131", "LOG_NUM_BANKS + (n)"] {
        assert!(out.stdout.contains(figure), "{figure}: {}", out.stdout);
    }
}

#[test]
fn compound_shifts_clamp_as_the_gpu_does() {
    // `m <<= t + 32` on a 32-bit value is 0 in every lane: one word, no conflict; the 64-bit
    // `w <<= 37` keeps its bits, so `w >> 32` is 32 * t: 32-way.
    let src = r#"__global__ void k(float *out)
{
    __shared__ float s[2048];
    unsigned m = 1u;
    m <<= threadIdx.x + 32;
    out[0] = s[m];
    long long w = threadIdx.x;
    w <<= 37;
    out[1] = s[w >> 32];
}

void launch(float *out)
{
    k<<<1, 32>>>(out);
}
"#;
    let dir = temp_dir("compound-shift");
    write(&dir, "k.cu", src.as_bytes());
    let json = banklint(&dir, &["check", "k.cu", "--format", "json"]).json();
    let ways: Vec<(u64, u64)> = json["accesses"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["line"].as_u64().unwrap(),
                a["conflict_ways"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(ways, [(6, 1), (9, 32)], "{json}");
    // The 32-bit compound shift is warned about as a plain one is, at the whole assignment,
    // with its largest count (31 + 32); the 64-bit one by 37 is in range.
    let warnings: Vec<(u64, String)> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "shift-overflow")
        .map(|d| {
            (
                d["line"].as_u64().unwrap(),
                d["message"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        warnings,
        [(
            5,
            "`<<` by a count of 63: the shifted value is 32 bits wide".to_string()
        )],
        "{json}"
    );
    // Written without a macro: no "as compiled" note repeating the line.
    let human = banklint(&dir, &["check", "k.cu", "--color", "never"]).stdout;
    assert!(human.contains("5 │     m <<= threadIdx.x + 32;"), "{human}");
    assert!(!human.contains("as compiled"), "{human}");
}
