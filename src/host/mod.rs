//! Host facts: what the host code of a file says about its kernels (block shapes, template
//! and kernel arguments at launch sites, annotations above kernels).

pub mod configurations;
pub mod element_sizes;
pub mod launches;
