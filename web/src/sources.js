// Where an Encoder reads a model's files: a folder (a path in Node, a URL; files.js reads it), or the app's own
// reader of them, as a React Native app has its files (bundled assets, a download folder): an object whose
// read(name) resolves to the file's bytes. Each file the manifest lists is checked by size and SHA-256 (hash.js:
// WebCrypto, else a pure-JavaScript one), as manifest.js's verifiedBytes and modelKey do with WebCrypto alone.
import { EdgeRankerError } from "./errors.js";
import { folderOf, readBytes } from "./files.js";
import { sha256 } from "./hash.js";

/** A source as {where, read(name, limit)}: where names it in errors. */
export function filesOf(source) {
  if (source !== null && typeof source === "object" && typeof source.read === "function") {
    const where = typeof source.name === "string" && source.name ? source.name : "the app's model files";
    return { where, read: (name, limit) => readOwn(source, where, name, limit) };
  }
  const folder = folderOf(source);
  return { where: String(folder), read: (name, limit) => readBytes(folder, name, limit) };
}

async function readOwn(source, where, name, limit = Infinity) {
  if (name.includes("\0")) throw new EdgeRankerError(`manifest.json names ${JSON.stringify(name)}, which holds a NUL character`);
  let data;
  try {
    data = await source.read(name);
  } catch (err) {
    throw new EdgeRankerError(`cannot read the model file ${name} of ${where}: ${err?.message ?? err}`);
  }
  if (data instanceof ArrayBuffer) data = new Uint8Array(data);
  else if (ArrayBuffer.isView(data)) data = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  else throw new EdgeRankerError(`the model file ${name} of ${where} was read as ${typeof data}, not bytes (a Uint8Array or ArrayBuffer)`);
  if (data.length > limit) throw new EdgeRankerError(`the model file ${name} of ${where} is ${data.length} bytes, more than the ${limit} it may be`);
  return data;
}

/** A file of the model, checked against the manifest's size and SHA-256 when `verify`: the bytes checked are used. */
export async function verifiedBytes(files, manifest, name, verify) {
  const meta = manifest.files[name];
  const data = await files.read(name, verify && meta ? meta.bytes : Infinity); // a file outside is named first
  if (!verify) return data;
  if (!meta) throw new EdgeRankerError(`manifest.json lists no hash for ${name}`);
  if (data.length !== meta.bytes) {
    throw new EdgeRankerError(`model file ${name} is truncated or altered: ${data.length} bytes, the manifest says ${meta.bytes}`);
  }
  if ((await sha256(data)) !== meta.sha256) {
    throw new EdgeRankerError(`model file ${name} is corrupted: its sha256 does not match the manifest`);
  }
  return data;
}

/** UTF-8 of a text whose lone surrogates are U+FFFD (the manifest's prefixes are well-formed). */
function utf8(s) {
  const out = [];
  for (const ch of s) {
    let c = ch.codePointAt(0);
    if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
    if (c < 0x80) out.push(c);
    else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  return Uint8Array.from(out);
}

/**
 * A model's identity in stored data, as Python's model_key: its name, the start of a hash of what makes a text's
 * vector (the graph's, tokenizer's and vocabulary's hashes, max_length, each role's prefix) and its windows.
 */
export async function modelKey(manifest) {
  const sha = [manifest.onnx, manifest.tokenizer, manifest.vocab].map((n) => manifest.files[n]?.sha256 ?? "");
  const roles = [];
  for (const role of Object.keys(manifest.prefixes).sort()) roles.push(`${role}\t${await sha256(utf8(manifest.prefixes[role]))}`);
  const made = [...sha, String(manifest.maxLength), ...roles].join("\n");
  const key = `${manifest.name}:${(await sha256(utf8(made))).slice(0, 16)}`;
  return manifest.windows === 1 ? key : `${key}:${manifest.windows}w`;
}
