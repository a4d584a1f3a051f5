//! Inline PTX whose shared-memory address banklint cannot follow is reported, never dropped:
//! an address from a kernel parameter, one held in a register of the template, and an
//! operation it does not price (a bulk copy) each say why.

mod common;
use common::{banklint, temp_dir, write};

const KERNEL: &str = r#"__global__ void k(unsigned base, unsigned *out)
{
    __shared__ unsigned long long bar[1];
    __shared__ unsigned tile[256];
    unsigned v;
    asm volatile("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(base + 4 * threadIdx.x));
    asm volatile("{ .reg .u32 a; cvta.to.shared.u32 a, %1; ld.shared.u32 %0, [a]; }" : "=r"(v) : "l"(tile));
    unsigned b = __cvta_generic_to_shared(&bar[0]);
    asm volatile("mbarrier.init.shared.b64 [%0], %1;" ::"r"(b), "r"(32));
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
    let notes: Vec<(u64, String)> = json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == "skipped-code")
        .map(|d| {
            let text = d["label"].as_str().unwrap_or_default().to_string();
            (d["line"].as_u64().unwrap(), text)
        })
        .collect();
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
    // The barrier's address is followed; the operation is recognized and not priced.
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
            .contains("mbarrier operation"),
        "{barrier}"
    );
}
