//! TODO-SKELETON configure
