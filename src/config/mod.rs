//! TODO-SKELETON config
