// The light of the mesh view: a head light, the procedural studio (the
// default), or an image-based lighting set of the output (docs/ibl.md) —
// its prefiltered specular cube for reflections and its irradiance
// spherical harmonics for diffuse light. The shading is in gl.js.

import { apiGet, b64F32 } from './api.js';

/** The default environment. */
export const STUDIO = 'studio';
/** The light of earlier versions: one light from the camera, no environment. */
export const HEAD_LIGHT = 'headlight';

/** Shader modes of each kind of environment (u_envMode). */
export const ENV_MODE = { [HEAD_LIGHT]: 0, [STUDIO]: 1, ibl: 2 };

/** The IBL sets of the output (a set whose cube does not parse carries its `error`). */
export async function loadEnvironmentSets() {
  const answer = await apiGet('/api/environments');
  return answer.environments || [];
}

/** The hash value naming an IBL set. */
export const iblChoice = (set) => `ibl:${set.name}`;

/** The environment select's [value, label] choices: the studio, each usable IBL set, the head light. */
export function environmentChoices(sets) {
  return [
    [STUDIO, 'studio'],
    ...sets.filter((s) => !s.error).map((s) => [iblChoice(s), `IBL ${s.name}`]),
    [HEAD_LIGHT, 'head light'],
  ];
}

/** The choice the hash asks for when it exists, else the studio. */
export function chosenEnvironment(value, sets) {
  return environmentChoices(sets).some(([v]) => v === value) ? value : STUDIO;
}

/**
 * Uploads the specular cube of an IBL set, every level and face as stored
 * (floats), as a mipmapped RGBA16F cube map: {texture, levels, sh}.
 */
export async function loadIblCube(gl, set) {
  const requests = [];
  for (let level = 0; level < set.levels; level++) {
    for (let face = 0; face < 6; face++) {
      requests.push(apiGet('/api/texture/values', { path: set.specular, level, face })
        .then((image) => ({ level, face, image })));
    }
  }
  const images = await Promise.all(requests);
  const texture = gl.createTexture();
  gl.bindTexture(gl.TEXTURE_CUBE_MAP, texture);
  gl.pixelStorei(gl.UNPACK_FLIP_Y_WEBGL, false); // face rows top first, as KTX2 and GL cube maps both read them
  gl.pixelStorei(gl.UNPACK_PREMULTIPLY_ALPHA_WEBGL, false);
  for (const { level, face, image } of images) {
    gl.texImage2D(gl.TEXTURE_CUBE_MAP_POSITIVE_X + face, level, gl.RGBA16F, image.width, image.height, 0,
      gl.RGBA, gl.FLOAT, b64F32(image.values));
  }
  gl.texParameteri(gl.TEXTURE_CUBE_MAP, gl.TEXTURE_BASE_LEVEL, 0);
  gl.texParameteri(gl.TEXTURE_CUBE_MAP, gl.TEXTURE_MAX_LEVEL, Math.max(0, set.levels - 1));
  gl.texParameteri(gl.TEXTURE_CUBE_MAP, gl.TEXTURE_MIN_FILTER, gl.LINEAR_MIPMAP_LINEAR);
  gl.texParameteri(gl.TEXTURE_CUBE_MAP, gl.TEXTURE_MAG_FILTER, gl.LINEAR);
  for (const wrap of [gl.TEXTURE_WRAP_S, gl.TEXTURE_WRAP_T, gl.TEXTURE_WRAP_R]) {
    gl.texParameteri(gl.TEXTURE_CUBE_MAP, wrap, gl.CLAMP_TO_EDGE);
  }
  const sh = new Float32Array(27);
  if (Array.isArray(set.sh) && set.sh.length === 27) sh.set(set.sh);
  return { texture, levels: set.levels, sh };
}

/** Sets the environment uniforms of a program (`cube` from loadIblCube when the mode is IBL). */
export function bindEnvironment(gl, uniforms, mode, cube) {
  gl.uniform1i(uniforms.u_envMode, mode);
  gl.uniform1i(uniforms.u_specular, 1); // unit 1: unit 0 is the base colour's 2D texture
  gl.activeTexture(gl.TEXTURE1);
  gl.bindTexture(gl.TEXTURE_CUBE_MAP, cube ? cube.texture : null);
  gl.activeTexture(gl.TEXTURE0);
  gl.uniform1f(uniforms.u_specularLevels, cube ? cube.levels : 1);
  gl.uniform3fv(uniforms.u_sh, cube ? cube.sh : new Float32Array(27));
}
