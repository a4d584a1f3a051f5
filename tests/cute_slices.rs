//! CuTe slices: a coordinate outside its mode (CuTe does not check one, and the index it
//! computes names another mode's value) is an unknown access that says which coordinate and
//! which extent, not an access at a wrong place.

mod common;
use common::{banklint, temp_dir, write};

const KERNEL: &str = r#"#include <cute/tensor.hpp>
using namespace cute;

__global__ void past(cute::half_t *gout) {
  using Element = cute::half_t;
  using SwAtom = decltype(composition(Swizzle<3, 3, 3>{}, Layout<Shape<_8, _64>, Stride<_64, _1>>{}));
  using Sw = decltype(tile_to_shape(SwAtom{}, Shape<_64, _64>{}));
  using S2R = decltype(make_tiled_copy(Copy_Atom<AutoVectorizingCopyWithAssumedAlignment<128>, Element>{},
                                       Layout<Shape<_16, _8>, Stride<_8, _1>>{}, Layout<Shape<_1, _8>>{}));
  extern __shared__ char smem[];
  Tensor sA = make_tensor(make_smem_ptr(reinterpret_cast<Element *>(smem)), Sw{});
  S2R s2r;
  auto thread = s2r.get_thread_slice(threadIdx.x);
  Tensor tBsA = thread.partition_S(sA);
  Tensor frag = make_fragment_like(tBsA(_, 0, _));
  for (int m = 0; m < 5; ++m) {
    cute::copy(s2r, tBsA(_, m, _), frag);
  }
  gout[threadIdx.x] = frag(0);
}

void launch(cute::half_t *out) { past<<<1, 128, 64 * 64 * 2>>>(out); }
"#;

#[test]
fn a_slice_past_its_mode_says_which_coordinate_and_extent() {
    let dir = temp_dir("cute-slice-past");
    write(&dir, "k.cu", KERNEL.as_bytes());
    let json = banklint(&dir, &["check", "k.cu", "--format", "json"]).json();
    let accesses = json["accesses"].as_array().unwrap();
    let copy: Vec<_> = accesses.iter().filter(|a| a["line"] == 17).collect();
    assert_eq!(copy.len(), 1, "{json}");
    // 128 threads (16, 8), 8 halfs each: tile m of 4 along the rows; m = 4 is past it.
    assert_eq!(copy[0]["status"], "unknown", "{json}");
    let reason = copy[0]["reason"].as_str().unwrap();
    assert!(
        reason.contains("the slice's coordinate 4 along mode 1 is outside the mode's extent 4"),
        "{reason}"
    );
    // The note's help speaks of the coordinate, not of kernel parameters.
    let notes = (json["diagnostics"].as_array().unwrap().iter())
        .find(|d| d["code"] == "unanalyzed-access" && d["line"] == 17)
        .map(|d| d["notes"].to_string())
        .unwrap_or_default();
    assert!(
        notes.contains("CuTe does not check a slice's coordinates"),
        "{notes}"
    );
}
