//! TODO-SKELETON encode
