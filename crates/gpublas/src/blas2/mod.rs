//! Level 2.
