// The error function in double precision (within 3e-15 of C's erf), for the model's exact GELU, as the JVM
// core's Erf.java computes it: tabulated every 1/32 on [0, 6] with its Taylor coefficients (its derivatives are
// Hermite polynomials times exp(-x^2)), so one call is a table look-up and a polynomial in a step of at most 1/64, of
// degree 7 here (the JVM's 9 changes no value by more than 2e-16; eight values a row make a row's start a shift).
// The table is seeded by the Maclaurin series below 2.5 and by the continued fraction of erfc above it; past 6, erf is
// 1 to double precision. JavaScript's Math has no erf.
const STEP = 1 / 32;
const LIMIT = 6;
const ORDER = 7;
const TWO_OVER_SQRT_PI = 2 / Math.sqrt(Math.PI);

/** erf(x) for 0 <= x <= 6, slowly but to double precision. */
function seed(x) {
  if (x < 2.5) {
    // 2/sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n+1)); at most ~3 digits lost to cancellation below 2.5
    const x2 = x * x;
    let term = x;
    let sum = x;
    for (let n = 1; n < 200; n++) {
      term *= -x2 / n;
      const add = term / (2 * n + 1);
      sum += add;
      if (Math.abs(add) <= 1e-17 * Math.abs(sum)) break;
    }
    return sum * TWO_OVER_SQRT_PI;
  }
  // erfc(x) = exp(-x^2)/sqrt(pi) / (x + (1/2)/(x + (2/2)/(x + (3/2)/(x + ...)))), evaluated from deep down
  let f = x;
  for (let k = 120; k >= 1; k--) f = x + k / 2 / f;
  return 1 - Math.exp(-x * x) / Math.sqrt(Math.PI) / f;
}

/** Row k (ORDER + 1 values from k * (ORDER + 1)): erf(x0) and f^(n)(x0) / n!, n = 1..ORDER, at x0 = k * STEP. */
const TABLE = (() => {
  const rows = Math.round(LIMIT / STEP) + 1;
  const t = new Float64Array(rows * (ORDER + 1));
  const hermite = new Float64Array(ORDER);
  for (let k = 0; k < rows; k++) {
    const x0 = k * STEP;
    const g = TWO_OVER_SQRT_PI * Math.exp(-x0 * x0);
    hermite[0] = 1;
    hermite[1] = 2 * x0;
    for (let m = 1; m + 1 < ORDER; m++) hermite[m + 1] = 2 * x0 * hermite[m] - 2 * m * hermite[m - 1];
    const at = k * (ORDER + 1);
    t[at] = seed(x0);
    let factorial = 1;
    for (let n = 1; n <= ORDER; n++) {
      factorial *= n;
      // d^n/dx^n erf = (-1)^(n-1) H_(n-1)(x) * 2/sqrt(pi) * exp(-x^2)
      t[at + n] = ((n & 1) === 1 ? 1 : -1) * hermite[n - 1] * g / factorial;
    }
  }
  return t;
})();

/**
 * GELU in place, exact (erf) form, each value in double and rounded to fp32 where stored: u * erf(u / sqrt 2) is
 * |u| * erf(|u| / sqrt 2), so that no branch depends on a value's sign; past 6, erf is 1 (the table's last row).
 */
export function gelu(values) {
  const last = TABLE.length - (ORDER + 1);
  for (let i = 0; i < values.length; i++) {
    const u = values[i];
    const au = Math.abs(u);
    const a = Math.min(au * Math.SQRT1_2, LIMIT);
    const k = (a * 32 + 0.5) | 0;
    const d = a - k * STEP;
    const at = Math.min(k << 3, last); // k * (ORDER + 1)
    // the Horner steps of erf's degree-7 polynomial, written out
    const r = TABLE[at] + d * (TABLE[at + 1] + d * (TABLE[at + 2] + d * (TABLE[at + 3] + d * (TABLE[at + 4] +
      d * (TABLE[at + 5] + d * (TABLE[at + 6] + d * TABLE[at + 7]))))));
    values[i] = 0.5 * (u + au * r);
  }
}

export function erf(x) {
  const a = Math.abs(x);
  if (Number.isNaN(a)) return a;
  let r;
  if (a >= LIMIT) {
    r = 1;
  } else {
    const k = Math.trunc(a / STEP + 0.5);
    const d = a - k * STEP;
    const at = k * (ORDER + 1);
    r = TABLE[at + ORDER];
    for (let n = ORDER - 1; n >= 0; n--) r = r * d + TABLE[at + n];
  }
  return x < 0 ? -r : r;
}
