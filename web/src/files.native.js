// A model folder's files in a React Native app (package.json's "react-native" field puts this module in place of
// files.js, whose Node file reading a React Native bundle cannot hold): an http(s) URL of a folder, read with fetch.
// An app that ships the models with it gives Encoder.load an object whose read(name) gives a file's bytes instead.
import { EdgeRankerError } from "./errors.js";

/** Where a folder's files are read from: an http(s) URL ending in "/". */
export function folderOf(source) {
  const url = typeof source === "string" || (source && typeof source === "object" && typeof source.href === "string") ? String(source) : "";
  if (url.includes("\0")) throw new EdgeRankerError(`the model folder ${JSON.stringify(url)} holds a NUL character, which no path can`);
  if (!/^https?:\/\/[^/]/i.test(url)) {
    throw new EdgeRankerError(
      `in a React Native app a model is an http(s) URL of its folder, or an object whose read(name) gives a file's bytes (an app's assets), got ${JSON.stringify(url || typeof source)}`,
    );
  }
  return url.endsWith("/") ? url : `${url}/`;
}

/** The bytes of a file in a folder, refused when it holds more than `limit`. */
export async function readBytes(folder, name, limit = Infinity) {
  if (name.includes("\0")) throw new EdgeRankerError(`manifest.json names ${JSON.stringify(name)}, which holds a NUL character`);
  if (name.startsWith("/") || name.split(/[\\/]/).includes("..") || /^[a-z][a-z0-9+.-]*:/i.test(name)) {
    throw new EdgeRankerError(`manifest.json names ${name}, which is not a file inside the model folder ${folder}`);
  }
  const url = folder + name.split("/").map(encodeURIComponent).join("/");
  let response;
  try {
    response = await fetch(url);
  } catch (err) {
    throw new EdgeRankerError(`cannot fetch the model file ${url}: ${err.message}`);
  }
  if (!response.ok) throw new EdgeRankerError(`cannot fetch the model file ${url}: HTTP ${response.status}`);
  const declared = Number(response.headers.get("content-length"));
  if (declared > limit) throw new EdgeRankerError(`the model file ${url} is ${declared} bytes, more than the ${limit} it may be`);
  const data = new Uint8Array(await response.arrayBuffer()); // React Native's fetch has no body stream to stop early
  if (data.length > limit) throw new EdgeRankerError(`the model file ${url} holds more than the ${limit} bytes it may`);
  return data;
}

