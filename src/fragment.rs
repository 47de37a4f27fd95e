//! TODO-SKELETON fragment
