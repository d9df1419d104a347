// A model folder's files: a path in Node, a URL in the browser (or in Node, a file: or http: URL).
import { EdgeRankerError } from "./errors.js";

const inNode = typeof process !== "undefined" && Boolean(process.versions?.node);

/** Where a folder's files are read from: a URL ending in "/", or a path. */
export function folderOf(source) {
  if (typeof source === "string" ? source.includes("\0") : source?.protocol === "file:" && /%00/.test(source.pathname)) {
    throw new EdgeRankerError(`the model folder ${JSON.stringify(String(source))} holds a NUL character, which no path can`);
  }
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

/**
 * The bytes of a file in a folder (folderOf's), refused when it holds more than `limit`: read only when it is a
 * regular file inside the folder, links followed (a link to /dev/zero would be read for ever, a pipe would wait for
 * a writer), sized before any byte is read.
 */
export async function readBytes(folder, name, limit = Infinity) {
  if (name.includes("\0")) throw new EdgeRankerError(`manifest.json names ${JSON.stringify(name)}, which holds a NUL character`);
  if (typeof folder !== "string" && !new URL(name, folder).href.startsWith(folder.href)) {
    throw new EdgeRankerError(`manifest.json names ${name}, which is not a file inside the model folder ${folder}`);
  }
  if (typeof folder === "string" || folder.protocol === "file:") return readLocal(folder, name, limit);
  const url = new URL(name, folder);
  let response;
  try {
    response = await fetch(url);
  } catch (err) {
    throw new EdgeRankerError(`cannot fetch the model file ${url}: ${err.message}`);
  }
  if (!response.ok) throw new EdgeRankerError(`cannot fetch the model file ${url}: HTTP ${response.status}`);
  return boundedBody(response, url, limit);
}

async function readLocal(folder, name, limit) {
  const { constants, promises: fs } = await import("node:fs");
  const { join, sep } = await import("node:path");
  const { fileURLToPath } = await import("node:url");
  const root = typeof folder === "string" ? folder : fileURLToPath(folder);
  const path = join(root, name);
  let handle;
  try {
    const [real, inside] = await Promise.all([fs.realpath(path), fs.realpath(root)]);
    if (!real.startsWith(inside.endsWith(sep) ? inside : inside + sep)) {
      throw new EdgeRankerError(`manifest.json names ${name}, which is not a file inside the model folder ${root}`);
    }
    handle = await fs.open(real, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    const info = await handle.stat();
    if (!info.isFile()) throw new EdgeRankerError(`the model file ${path} is not a regular file (a folder, pipe or device)`);
    if (info.size > limit) throw new EdgeRankerError(`the model file ${path} is ${info.size} bytes, more than the ${limit} it may be`);
    const data = new Uint8Array(Math.min(info.size, limit) + 1);
    let got = 0;
    for (let n; got < data.length && (n = (await handle.read(data, got, data.length - got, got)).bytesRead) > 0; ) got += n;
    if (got > limit) throw new EdgeRankerError(`the model file ${path} holds more than the ${limit} bytes it may`);
    return data.subarray(0, got);
  } catch (err) {
    if (err instanceof EdgeRankerError) throw err;
    const why = err.code === "ENOENT" ? "no such file" : err.message;
    throw new EdgeRankerError(`cannot read the model file ${path}: ${why}`);
  } finally {
    await handle?.close();
  }
}

/** A response's body, refused as soon as it holds more than `limit` bytes. */
async function boundedBody(response, url, limit) {
  const declared = Number(response.headers.get("content-length"));
  if (declared > limit) throw new EdgeRankerError(`the model file ${url} is ${declared} bytes, more than the ${limit} it may be`);
  const chunks = [];
  let got = 0;
  for (const reader = response.body.getReader(); ; ) {
    const { done, value } = await reader.read();
    if (done) break;
    got += value.length;
    if (got > limit) {
      await reader.cancel();
      throw new EdgeRankerError(`the model file ${url} holds more than the ${limit} bytes it may`);
    }
    chunks.push(value);
  }
  const data = new Uint8Array(got);
  chunks.reduce((at, c) => (data.set(c, at), at + c.length), 0);
  return data;
}
