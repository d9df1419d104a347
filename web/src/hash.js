// SHA-256 in lowercase hex: by WebCrypto where the engine has it (browsers, Node), else by @noble/hashes, a
// maintained pure-JavaScript one (React Native's Hermes has no WebCrypto). The library is imported only when needed.
let pure;

/** The digest of `bytes` (a Uint8Array) by @noble/hashes, whatever the engine has. */
export async function sha256Pure(bytes) {
  pure ??= import("@noble/hashes/sha2.js").then((m) => m.sha256);
  return hex((await pure)(bytes));
}

export async function sha256(bytes) {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) return sha256Pure(bytes);
  return hex(new Uint8Array(await subtle.digest("SHA-256", bytes)));
}

function hex(digest) {
  let out = "";
  for (const b of digest) out += (b < 16 ? "0" : "") + b.toString(16);
  return out;
}
