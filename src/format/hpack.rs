//! TODO-SKELETON hpack
