//! Animated images (GIF, APNG, animated WebP): their frames, which the
//! texture encoder writes as the layers of a texture array with the frames'
//! times in its key/value data (`docs/textures.md`, "Animated images").

pub mod frames;

#[cfg(test)]
mod tests;
