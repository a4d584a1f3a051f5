//! Inline PTX whose shared-memory address banklint cannot follow is reported, never dropped:
//! an address from a kernel parameter, one held in a register of the template, and an
//! operation it does not price (a bulk copy) each say why.

mod common;
use common::{banklint, labels_of, temp_dir, write};

const KERNEL: &str = r#"__global__ void k(unsigned base, unsigned *out)
{
    __shared__ unsigned long long bar[1];
    __shared__ unsigned tile[256];
    unsigned v;
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(base + 4 * threadIdx.x));
    asm volatile("{ .reg .u32 a; cvta.to.shared.u32 a, %1; ld.shared.u32 %0, [a]; }" : "=r"(v) : "l"(tile));
    unsigned b = __cvta_generic_to_shared(&bar[0]);
    asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(b));
    out[threadIdx.x] = v;
}

void launch(unsigned *out)
{
    k<<<1, 32>>>(0, out);
}
"#;

#[test]
fn addresses_banklint_cannot_follow_are_reported_with_the_reason() {
    let dir = temp_dir("inline-ptx");
    write(&dir, "k.cu", KERNEL.as_bytes());
    let out = banklint(&dir, &["check", "k.cu", "--format", "json"]);
    let json = out.json();
    let notes = labels_of(&json, "skipped-code");
    let on = |line: u64, words: &str| {
        notes
            .iter()
            .any(|(l, text)| *l == line && text.contains(words))
    };
    assert!(
        on(6, "the address `base + 4 * threadIdx.x` of `ld.shared.u32`"),
        "{notes:?}"
    );
    assert!(
        on(
            7,
            "`ld.shared.u32` addresses shared memory through a register"
        ),
        "{notes:?}"
    );
    // The barrier's address is followed; the operation (on another block's barrier) is
    // recognized and not priced, since it was not measured.
    let barrier = json["accesses"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["array"] == "bar")
        .expect("the mbarrier operation is an access of `bar`");
    assert_eq!(barrier["status"], "unknown");
    assert!(
        barrier["reason"]
            .as_str()
            .unwrap()
            .contains("barrier of the cluster (`shared::cluster`) was not measured"),
        "{barrier}"
    );
}

/// What a header's function does not follow is reported at the call in the checked file,
/// naming the function and its line in the header; not at the header's offsets read as the
/// checked file's.
#[test]
fn an_address_not_followed_in_a_header_is_reported_at_the_call() {
    let dir = temp_dir("inline-ptx-header");
    let header = r#"struct bar_t { unsigned long long w; };
__device__ void arrive_on(bar_t &b, unsigned raw)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(raw));
}
"#;
    let main = r#"#include "bar.cuh"
__global__ void k(unsigned raw)
{
    __shared__ bar_t bars[4];
    arrive_on(bars[threadIdx.x % 4], raw);
}
int main() { k<<<1, 32>>>(0); }
"#;
    write(&dir, "bar.cuh", header.as_bytes());
    write(&dir, "k.cu", main.as_bytes());
    let out = banklint(&dir, &["check", "k.cu", "--format", "json"]);
    let notes = labels_of(&out.json(), "skipped-code");
    assert_eq!(notes.len(), 1, "{notes:?}");
    let (line, text) = &notes[0];
    assert_eq!(*line, 5, "{notes:?}");
    assert!(
        text.starts_with("in `arrive_on` at bar.cuh:4: the address `raw`"),
        "{text}"
    );
}

const LDMATRIX: &str = r#"#include <cstdint>
__global__ void k(unsigned *out)
{
    __shared__ __half a[128][32];
    unsigned lane = threadIdx.x % 32, r0, r1, r2, r3;
    uint32_t p = __cvta_generic_to_shared(&a[lane % 16][(lane / 16) * 8]);
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(p));
    out[lane] = r0 + r1 + r2 + r3;
}

void launch(unsigned *out)
{
    k<<<1, 32>>>(out);
}
"#;

/// The first bank conflict `banklint check k.cu` reports in `dir`.
fn first_conflict(dir: &std::path::Path) -> serde_json::Value {
    let json = banklint(dir, &["check", "k.cu", "--format", "json"]).json();
    json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["code"] == "bank-conflict")
        .expect("the 4-way ldmatrix")
        .clone()
}

/// A 128x32 `__half` tile read by `ldmatrix.x4` (4-way): padding checked on the accesses
/// made through the PTX address. One `__half` of padding would break the 16-byte alignment
/// `ldmatrix` needs; 8 (16 bytes, 80-byte rows) is the smallest that keeps it, and makes the
/// read clean (docs/BANK_RULES.md: 4 wavefronts).
#[test]
fn an_ldmatrix_conflict_gets_a_padding_that_keeps_rows_16_byte_aligned() {
    let dir = temp_dir("ldmatrix-fix");
    write(&dir, "k.cu", LDMATRIX.as_bytes());
    let conflict = first_conflict(&dir);
    assert_eq!(conflict["conflict_ways"], 4);
    let fix = &conflict["suggestion"];
    assert_eq!(fix["replacement"], "32 + 8", "{fix}");
    assert_eq!(fix["conflict_free"], true);
    assert_eq!(fix["bytes_added"], 2048);
    // Applied, the read is clean.
    let o = banklint(&dir, &["check", "k.cu", "--fix", "--format", "short"]);
    assert_eq!(o.code, Some(0), "{}", o.stdout);
    let fixed = std::fs::read_to_string(dir.join("k.cu")).unwrap();
    assert!(fixed.contains("__half a[128][32 + 8];"), "{fixed}");
}

/// The same tile also filled by `cp.async` in row order: 80-byte rows would make each copy
/// phase span a bank group twice (4 -> 8 wavefronts), so no padding is offered; a swizzle is.
#[test]
fn a_swizzle_not_a_padding_is_offered_when_padding_makes_the_copy_worse() {
    let dir = temp_dir("ldmatrix-no-fix");
    let with_copy = LDMATRIX.replace(
        "    uint32_t p =",
        "    uint32_t d = __cvta_generic_to_shared(&a[lane / 4][(lane % 4) * 8]);\n    asm volatile(\"cp.async.cg.shared.global [%0], [%1], 16;\" ::\"r\"(d), \"l\"(out + 4 * lane));\n    uint32_t p =",
    );
    write(&dir, "k.cu", with_copy.as_bytes());
    let conflict = first_conflict(&dir);
    assert!(conflict["suggestion"].is_null(), "{conflict}");
    // The swizzle that serves instead, checked on both accesses: the 16-byte chunk XORed
    // with (row / 2) % 4, CuTe's Swizzle<2, 3, 3> for 2-byte elements and 64-byte rows
    // (docs/BANK_RULES.md: 4 wavefronts for the ldmatrix; the copy stays at 4).
    let notes = conflict["notes"].to_string();
    assert!(notes.contains("CuTe `Swizzle<2, 3, 3>`"), "{notes}");
    assert!(
        notes.contains("((c / 8) ^ ((r >> 1) & 3)) * 8 + c % 8"),
        "{notes}"
    );
}

/// A template naming an operand the statement does not pass is reported, not dropped.
#[test]
fn an_address_operand_that_is_not_there_is_reported() {
    let dir = temp_dir("inline-ptx-missing-operand");
    let kernel = "__global__ void k(unsigned *out)\n{\n    __shared__ unsigned s[32];\n    unsigned v;\n    asm volatile(\"ld.shared.u32 %0, [%3];\" : \"=r\"(v));\n    out[threadIdx.x] = v + s[0];\n}\n";
    write(&dir, "k.cu", kernel.as_bytes());
    let json = banklint(&dir, &["check", "k.cu", "--format", "json"]).json();
    let noted = json["diagnostics"].as_array().unwrap().iter().any(|d| {
        d["code"] == "skipped-code"
            && d["line"] == 5
            && d["label"]
                .as_str()
                .unwrap_or_default()
                .contains("names an operand the `asm` statement does not have")
    });
    assert!(noted, "{json}");
}
