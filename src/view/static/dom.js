// DOM helpers: building elements and waiting for frames.

const PROPERTY_ATTRS = new Set(['checked', 'value', 'selected', 'disabled', 'width', 'height']);

/** Creates an element: el('a', {href: '#', class: 'x', onclick: f}, 'text', child). */
export function el(tag, attrs, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value == null || value === false) continue;
    if (key === 'class') node.className = value;
    else if (key === 'text') node.textContent = value;
    else if (key === 'style' && typeof value === 'object') Object.assign(node.style, value);
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else if (PROPERTY_ATTRS.has(key)) node[key] = value;
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  appendChildren(node, children);
  return node;
}

/** Replaces a node's children, skipping null/false like el() does. */
export function setChildren(node, ...children) {
  node.replaceChildren();
  appendChildren(node, children);
}

function appendChildren(node, children) {
  for (const child of children.flat(Infinity)) {
    if (child == null || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
}

/** The first element matching a CSS selector. */
export const $ = (selector, root = document) => root.querySelector(selector);


/**
 * Calls fn once, on the next animation frame or after 40 ms, whichever comes
 * first: headless browsers on virtual time run very few animation frames.
 * Returns a function that cancels the call.
 */
export function nextFrame(fn) {
  let done = false;
  const cancel = () => { done = true; cancelAnimationFrame(raf); clearTimeout(timer); };
  const run = () => { if (!done) { cancel(); fn(); } };
  const raf = requestAnimationFrame(run);
  const timer = setTimeout(run, 40);
  return cancel;
}

/** Resolves after two frames, so what was just drawn is on screen. */
export function afterPaint() {
  return new Promise((resolve) => nextFrame(() => nextFrame(resolve)));
}
