//! (filled in by its section of issue 27)
