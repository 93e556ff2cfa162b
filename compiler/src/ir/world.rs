//! Worlds: placeholder, being written.
