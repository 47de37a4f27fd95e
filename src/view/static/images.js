// Images from the server: decoded once and shared by every view, their exact
// texels, and one channel of them as grey.

import { el } from './dom.js';
import { ApiError, apiFetch, pathOfUrl } from './api.js';

// Decoded images, shared by every view, keyed by URL.
const imageCache = new Map();

/** The decoded image at `url`, fetched once and shared; a failed load is retried next time. */
export function loadImage(url) {
  if (!imageCache.has(url)) {
    const promise = fetchImage(url);
    promise.catch(() => imageCache.delete(url)); // let a later attempt retry
    imageCache.set(url, promise);
  }
  return imageCache.get(url);
}

// Waits for `load` rather than img.decode(): headless Chromium on a virtual
// time budget does not wait for the decoder, but does wait for a load.
// Drawing the image later decodes it synchronously.
async function fetchImage(url) {
  const response = await apiFetch(url);
  const objectUrl = URL.createObjectURL(await response.blob());
  try {
    const img = new Image();
    await new Promise((resolve, reject) => {
      img.onload = resolve;
      img.onerror = () => reject(new ApiError(`${url}: the image does not decode`, response.status));
      img.src = objectUrl;
    });
    return img;
  } finally {
    URL.revokeObjectURL(objectUrl);
  }
}

/** Forgets the images and texels of the textures at these runtime paths (they were rebuilt). */
export function forgetImagesOf(paths) {
  for (const cache of [imageCache, texelCache]) {
    for (const url of [...cache.keys()]) {
      if (paths.has(pathOfUrl(url))) cache.delete(url);
    }
  }
}

// --- Exact texels of an image --------------------------------------------
// A 2D canvas stores premultiplied alpha, which loses the colour of
// transparent texels. Uploading to a WebGL texture without premultiplying
// and reading it back gives the bytes the server sent.

let texelReader;

function createTexelReader() {
  const canvas = document.createElement('canvas');
  canvas.width = canvas.height = 1;
  const gl = canvas.getContext('webgl2');
  if (!gl) return null;
  const texture = gl.createTexture();
  const framebuffer = gl.createFramebuffer();
  return (img, width, height) => {
    gl.bindTexture(gl.TEXTURE_2D, texture);
    gl.pixelStorei(gl.UNPACK_PREMULTIPLY_ALPHA_WEBGL, false);
    gl.pixelStorei(gl.UNPACK_COLORSPACE_CONVERSION_WEBGL, gl.NONE);
    gl.pixelStorei(gl.UNPACK_FLIP_Y_WEBGL, false);
    gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA8, gl.RGBA, gl.UNSIGNED_BYTE, img);
    gl.bindFramebuffer(gl.FRAMEBUFFER, framebuffer);
    gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, texture, 0);
    const out = new Uint8Array(width * height * 4);
    gl.readPixels(0, 0, width, height, gl.RGBA, gl.UNSIGNED_BYTE, out);
    gl.bindFramebuffer(gl.FRAMEBUFFER, null);
    if (gl.getError() !== gl.NO_ERROR) return null;
    // Row 0 of the texture is the top row of the image, so no flip is needed.
    return new Uint8ClampedArray(out.buffer);
  };
}

function readTexelsWith2d(img, width, height) {
  const canvas = el('canvas', { width, height });
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  ctx.drawImage(img, 0, 0);
  return ctx.getImageData(0, 0, width, height).data;
}

/** {width, height, data: RGBA8 Uint8ClampedArray, top row first} of an image. */
function readTexels(img) {
  const width = img.naturalWidth;
  const height = img.naturalHeight;
  let data = null;
  try {
    if (texelReader === undefined) texelReader = createTexelReader();
    if (texelReader) data = texelReader(img, width, height);
  } catch (_) {
    data = null; // fall back to the 2D canvas below
  }
  return { width, height, data: data || readTexelsWith2d(img, width, height) };
}

const texelCache = new Map();

/** The exact texels of the image at `url`, read once and shared. */
export async function loadTexels(url) {
  if (!texelCache.has(url)) texelCache.set(url, readTexels(await loadImage(url)));
  return texelCache.get(url);
}

/** A canvas holding the texels (alpha kept unless opaque is set). */
export function texelsToCanvas(texels, opaque = false) {
  const canvas = el('canvas', { width: texels.width, height: texels.height });
  const data = new Uint8ClampedArray(texels.data);
  if (opaque) for (let i = 3; i < data.length; i += 4) data[i] = 255;
  canvas.getContext('2d').putImageData(new ImageData(data, texels.width, texels.height), 0, 0);
  return canvas;
}

/** Copies texels, keeping one channel as grey (or all four for 'rgba'). */
export function isolateChannel(src, channel) {
  const out = new Uint8ClampedArray(src);
  const k = 'rgba'.indexOf(channel);
  if (channel === 'rgba' || k < 0) return out;
  for (let i = 0; i < out.length; i += 4) {
    const v = src[i + k];
    out[i] = v; out[i + 1] = v; out[i + 2] = v; out[i + 3] = 255;
  }
  return out;
}
