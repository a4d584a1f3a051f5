//! TMA tile copies: where the copy engine puts each element (measured on an H100, in
//! `hw/measurements/`), and the `tma-swizzle` checks of the accesses that read a TMA tile.

mod common;
use banklint::bank::tma::TmaSwizzle;
use common::{banklint, temp_dir, write};
use serde_json::Value;

fn measurements(run: u32) -> Vec<Value> {
    let path = format!(
        "{}/hw/measurements/tma_layout_h100_run{run}.jsonl",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

#[test]
fn the_layout_model_places_every_measured_element() {
    // Run 2: per mode, box width and base offset, how many of the box's elements the probe
    // found where the model (row pitch = swizzle span, swizzle on the address) puts them.
    let run2 = measurements(2);
    assert_eq!(run2.len(), 112);
    for r in &run2 {
        assert!(r.get("error").is_none(), "{r}");
        assert_eq!(r["found"], r["elements"], "{r}");
        assert_eq!(r["absolute_model"], r["elements"], "{r}");
    }
    // Run 1 recorded, for the configurations where rows packed at the box's width would be
    // wrong, the measured byte position of up to three elements: the model must give each.
    let mut checked = 0;
    for r in measurements(1) {
        let mode = TmaSwizzle::from_value(r["mode"].as_i64().unwrap()).unwrap();
        let (inner, offset) = (
            r["inner_bytes"].as_i64().unwrap(),
            r["offset"].as_i64().unwrap(),
        );
        let triples: Vec<i64> = r["first_wrong_row_col_at"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_i64().unwrap())
            .collect();
        for t in triples.chunks(3) {
            let (row, col, at) = (t[0], t[1], t[2]);
            assert_eq!(mode.place(offset, row, 2 * col, inner), at, "{r}");
            checked += 1;
        }
    }
    assert!(checked >= 100, "{checked} measured positions");
}

/// The diagnostics of one code in a JSON report: line, message and notes joined.
fn of_code(json: &Value, code: &str) -> Vec<(u64, String)> {
    json["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| d["code"] == code)
        .map(|d| {
            let notes: Vec<&str> = d["notes"]
                .as_array()
                .map(|n| n.iter().filter_map(|x| x.as_str()).collect())
                .unwrap_or_default();
            (
                d["line"].as_u64().unwrap(),
                format!("{} | {}", d["message"].as_str().unwrap(), notes.join(" | ")),
            )
        })
        .collect()
}

#[test]
fn reads_that_ignore_the_copys_swizzle_are_found_and_the_fix_is_the_tensor_maps() {
    let fixture = format!(
        "{}/fixtures/99_tma_swizzle_consumers.cu",
        env!("CARGO_MANIFEST_DIR")
    );
    let out = banklint(
        std::path::Path::new("."),
        &["check", &fixture, "--format", "json"],
    );
    let json = out.json();
    let tma = of_code(&json, "tma-swizzle");
    // Line 61 reads through the 128-byte swizzle; line 75's map has none, and it reads plainly.
    assert_eq!(tma.len(), 1, "{tma:?}");
    assert_eq!(tma[0].0, 58);
    assert!(
        tma[0].1.contains("as if laid out with no swizzle"),
        "{tma:?}"
    );
    assert!(tma[0].1.contains("CU_TENSOR_MAP_SWIZZLE_128B"), "{tma:?}");
    let conflicts = of_code(&json, "bank-conflict");
    let on_75 = &conflicts.iter().find(|(l, _)| *l == 75).expect("line 75").1;
    assert!(
        on_75.contains("give its tensor map `CU_TENSOR_MAP_SWIZZLE_128B`"),
        "{on_75}"
    );
    // The copy writes the box densely: no padding is offered for either tile.
    for (line, text) in &conflicts {
        assert!(!text.contains("pad the"), "line {line}: {text}");
    }
}

const SIXTY_FOUR: &str = r#"#include <cuda.h>
#include <cstdint>
#define LDSM(R, addr) asm volatile("ldmatrix.sync.aligned.x4.m8n8.shared.b16 {%0, %1, %2, %3}, [%4];" \
    : "=r"(R[0]), "=r"(R[1]), "=r"(R[2]), "=r"(R[3]) : "r"(addr))

__global__ void k(const __grid_constant__ CUtensorMap map, unsigned *out)
{
    __shared__ __align__(512) unsigned short tile[64][32];
    unsigned r[4];
    if (threadIdx.x == 0)
        asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                     :: "r"((unsigned)__cvta_generic_to_shared(&tile[0][0])), "l"(&map), "r"(0), "r"(0), "r"(0u));
    unsigned row = threadIdx.x % 16, chunk = threadIdx.x / 16;
    LDSM(r, (unsigned)__cvta_generic_to_shared(&tile[row][chunk * 8]));
    LDSM(r, (unsigned)__cvta_generic_to_shared(&tile[row][(chunk ^ ((row >> 1) & 3)) * 8]));
    out[threadIdx.x] = r[0];
}

void run(void *g, unsigned *out)
{
    CUtensorMap map;
    cuuint64_t dims[2] = {32, 64}, strides[1] = {64};
    cuuint32_t box[2] = {32, 64}, es[2] = {1, 1};
    cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_UINT16, 2, g, dims, strides, box, es,
                           CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_64B,
                           CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
    k<<<1, 32>>>(map, out);
}

__global__ void unlaunched(const __grid_constant__ CUtensorMap map)
{
    __shared__ __align__(1024) unsigned short t[64][64];
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];"
                 :: "r"((unsigned)__cvta_generic_to_shared(&t[0][0])), "l"(&map), "r"(0), "r"(0), "r"(0u));
}
"#;

#[test]
fn the_64_byte_swizzle_of_a_map_made_by_cu_tensor_map_encode_tiled() {
    let dir = temp_dir("tma-64");
    write(&dir, "k.cu", SIXTY_FOUR.as_bytes());
    let json = banklint(&dir, &["check", "k.cu", "--format", "json"]).json();
    let tma = of_code(&json, "tma-swizzle");
    // Line 14 reads 64-byte rows plainly (4-way); line 15 through chunk ^ ((row >> 1) & 3),
    // which is the 64-byte swizzle on 64-byte rows of a 512-aligned tile: clean.
    let lines: Vec<u64> = tma.iter().map(|(l, _)| *l).collect();
    assert_eq!(lines, [14, 34], "{tma:?}");
    assert!(tma[0].1.contains("uses the 64-byte swizzle"), "{tma:?}");
    assert!(tma[0].1.contains("made at line 24"), "{tma:?}");
    // The copy of a kernel no launch in the file passes a map to: its layout is not known.
    assert!(tma[1].1.contains("is not known"), "{tma:?}");
    let accesses = json["accesses"].as_array().unwrap();
    let ways = |line: u64| {
        accesses
            .iter()
            .find(|a| a["line"] == line)
            .map(|a| a["conflict_ways"].as_u64().unwrap())
    };
    assert_eq!((ways(14), ways(15)), (Some(4), Some(1)));
}
