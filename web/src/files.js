// A model folder's files: a path in Node, a URL in the browser (or in Node, a file: or http: URL).
import { EdgeRankerError } from "./errors.js";

const inNode = typeof process !== "undefined" && Boolean(process.versions?.node);

/** Where a folder's files are read from: a URL ending in "/", or a path. */
export function folderOf(source) {
  if (source instanceof URL) return new URL(source.href.endsWith("/") ? source.href : `${source.href}/`);
  if (typeof source !== "string" || !source) {
    throw new EdgeRankerError(`a model is a folder path or URL (a non-empty string or URL), got ${String(source)}`);
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source) || !inNode) {
    const base = typeof location !== "undefined" ? location.href : undefined;
    return new URL(source.endsWith("/") ? source : `${source}/`, base);
  }
  return source;
}

/** The bytes of a file in a folder (folderOf's). */
export async function readBytes(folder, name) {
  if (typeof folder !== "string" && !new URL(name, folder).href.startsWith(folder.href)) {
    throw new EdgeRankerError(`manifest.json names ${name}, which is not a file inside the model folder ${folder}`);
  }
  if (typeof folder === "string" || folder.protocol === "file:") {
    const { readFile } = await import("node:fs/promises");
    const { join } = await import("node:path");
    const path = typeof folder === "string" ? join(folder, name) : new URL(name, folder);
    try {
      return new Uint8Array(await readFile(path));
    } catch (err) {
      const why = err.code === "ENOENT" ? "no such file" : err.message;
      throw new EdgeRankerError(`cannot read the model file ${String(path)}: ${why}`);
    }
  }
  const url = new URL(name, folder);
  let response;
  try {
    response = await fetch(url);
  } catch (err) {
    throw new EdgeRankerError(`cannot fetch the model file ${url}: ${err.message}`);
  }
  if (!response.ok) throw new EdgeRankerError(`cannot fetch the model file ${url}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

/** A file's SHA-256 in lowercase hex, by WebCrypto (the browser's, or Node's globalThis.crypto). */
export async function sha256(bytes) {
  const digest = new Uint8Array(await globalThis.crypto.subtle.digest("SHA-256", bytes));
  return Array.from(digest, (b) => b.toString(16).padStart(2, "0")).join("");
}
