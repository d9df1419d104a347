// Standard functions the package uses that React Native's JavaScript engine may lack (Hermes has no TextDecoder,
// and older ones no TextEncoder, atob, btoa or String.prototype.isWellFormed), each defined only where missing,
// as the standard defines it for what the package passes: UTF-8 text, Latin-1 binary strings.
const g = globalThis;

/** UTF-8 of a string; a lone surrogate is written as U+FFFD, as TextEncoder does. */
function utf8(s) {
  const out = new Uint8Array(s.length * 3);
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        i++;
      }
    }
    if (c >= 0xd800 && c <= 0xdfff) c = 0xfffd;
    if (c < 0x80) out[n++] = c;
    else if (c < 0x800) {
      out[n++] = 0xc0 | (c >> 6);
      out[n++] = 0x80 | (c & 63);
    } else if (c < 0x10000) {
      out[n++] = 0xe0 | (c >> 12);
      out[n++] = 0x80 | ((c >> 6) & 63);
      out[n++] = 0x80 | (c & 63);
    } else {
      out[n++] = 0xf0 | (c >> 18);
      out[n++] = 0x80 | ((c >> 12) & 63);
      out[n++] = 0x80 | ((c >> 6) & 63);
      out[n++] = 0x80 | (c & 63);
    }
  }
  return out.slice(0, n);
}

/** A string of UTF-8 bytes: an ill-formed sequence is U+FFFD (the WHATWG decoder's replacement), or an error. */
function fromUtf8(bytes, fatal) {
  const parts = [];
  let units = [];
  const bad = () => {
    if (fatal) throw new TypeError("The encoded data was not valid for encoding utf-8");
    units.push(0xfffd);
  };
  for (let i = 0; i < bytes.length; ) {
    const b = bytes[i];
    let need = 0;
    let c = 0;
    let lo = 0x80;
    let hi = 0xbf;
    if (b < 0x80) {
      units.push(b);
      i++;
    } else {
      if (b >= 0xc2 && b <= 0xdf) {
        need = 1;
        c = b & 0x1f;
      } else if (b >= 0xe0 && b <= 0xef) {
        need = 2;
        c = b & 0x0f;
        if (b === 0xe0) lo = 0xa0;
        if (b === 0xed) hi = 0x9f;
      } else if (b >= 0xf0 && b <= 0xf4) {
        need = 3;
        c = b & 0x07;
        if (b === 0xf0) lo = 0x90;
        if (b === 0xf4) hi = 0x8f;
      } else {
        bad();
        i++;
        continue;
      }
      let j = i + 1;
      let ok = true;
      for (let k = 0; k < need; k++, j++) {
        const x = bytes[j];
        if (j >= bytes.length || x < (k === 0 ? lo : 0x80) || x > (k === 0 ? hi : 0xbf)) {
          ok = false;
          break;
        }
        c = (c << 6) | (x & 0x3f);
      }
      if (!ok) {
        bad();
        i = j; // the bytes read so far are one ill-formed sequence; the one that ended it starts the next
        continue;
      }
      i = j;
      if (c >= 0x10000) units.push(0xd800 + ((c - 0x10000) >> 10), 0xdc00 + ((c - 0x10000) & 0x3ff));
      else units.push(c);
    }
    if (units.length >= 8192) {
      parts.push(String.fromCharCode.apply(null, units));
      units = [];
    }
  }
  parts.push(String.fromCharCode.apply(null, units));
  return parts.join("");
}

const bytesOf = (input) => {
  if (input === undefined) return new Uint8Array(0);
  if (input instanceof ArrayBuffer) return new Uint8Array(input);
  if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  throw new TypeError("TextDecoder.decode takes an ArrayBuffer or a view of one");
};

if (typeof g.TextEncoder !== "function") {
  g.TextEncoder = class TextEncoder {
    get encoding() {
      return "utf-8";
    }

    encode(input = "") {
      return utf8(String(input));
    }
  };
}

if (typeof g.TextDecoder !== "function") {
  g.TextDecoder = class TextDecoder {
    constructor(label = "utf-8", options = {}) {
      if (!/^(utf-?8|unicode-1-1-utf-8)$/i.test(String(label).trim())) throw new RangeError(`this TextDecoder reads utf-8 only, not ${label}`);
      this.fatal = Boolean(options.fatal);
      this.ignoreBOM = Boolean(options.ignoreBOM);
    }

    get encoding() {
      return "utf-8";
    }

    decode(input) {
      let bytes = bytesOf(input);
      if (!this.ignoreBOM && bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) bytes = bytes.subarray(3);
      return fromUtf8(bytes, this.fatal);
    }
  };
}

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

if (typeof g.btoa !== "function") {
  g.btoa = function btoa(data) {
    const s = String(data);
    let out = "";
    for (let i = 0; i < s.length; i += 3) {
      const a = s.charCodeAt(i);
      const b = i + 1 < s.length ? s.charCodeAt(i + 1) : 0;
      const c = i + 2 < s.length ? s.charCodeAt(i + 2) : 0;
      if (a > 255 || b > 255 || c > 255) throw new Error("btoa: the string holds a character outside Latin-1");
      const n = (a << 16) | (b << 8) | c;
      out += BASE64[n >> 18] + BASE64[(n >> 12) & 63];
      out += i + 1 < s.length ? BASE64[(n >> 6) & 63] : "=";
      out += i + 2 < s.length ? BASE64[n & 63] : "=";
    }
    return out;
  };
}

if (typeof g.atob !== "function") {
  g.atob = function atob(data) {
    let s = String(data).replace(/[\t\n\f\r ]/g, "");
    if (s.length % 4 === 0) s = s.replace(/==?$/, "");
    if (s.length % 4 === 1 || /[^A-Za-z0-9+/]/.test(s)) throw new Error("atob: the string is not base64");
    let out = "";
    let bits = 0;
    let n = 0;
    for (let i = 0; i < s.length; i++) {
      bits = (bits << 6) | BASE64.indexOf(s[i]);
      n += 6;
      if (n >= 8) {
        n -= 8;
        out += String.fromCharCode((bits >> n) & 255);
      }
    }
    return out;
  };
}

if (typeof String.prototype.isWellFormed !== "function") {
  Object.defineProperty(String.prototype, "isWellFormed", {
    configurable: true,
    writable: true,
    value: function isWellFormed() {
      return !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(String(this));
    },
  });
}
