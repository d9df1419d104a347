// A call's options, as every public method takes them: one object of named settings.
import { EdgeRankerError } from "./errors.js";
import { typeName } from "./text.js";

/** An object of the names `call` takes (a misspelt one would be ignored), or nothing for the defaults. */
export function given(options, call, names) {
  if (options === undefined || options === null) return {};
  if (typeof options !== "object" || Array.isArray(options)) {
    throw new EdgeRankerError(`${call}'s options must be an object, got ${typeName(options)}`);
  }
  const unknown = Object.keys(options).filter((k) => !names.includes(k));
  if (unknown.length) throw new EdgeRankerError(`${call} has no option ${unknown.join(", ")}; it has ${names.join(", ")}`);
  return options;
}
