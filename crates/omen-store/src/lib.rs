//! Campaign storage.
