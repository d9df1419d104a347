package ai.edgeranker.core;

/**
 * The error function in double precision (within a few 1e-16 of C's erf), for the model's exact GELU;
 * java.lang.Math has none. erf is tabulated every 1/32 on [0, 6] together with its Taylor coefficients
 * (its derivatives are Hermite polynomials times exp(-x^2)), so one call is a table look-up and a degree-9
 * polynomial in a step of at most 1/64. The table is seeded by the Maclaurin series below 2.5 and by the
 * continued fraction of erfc above it; past 6, erf is 1 to double precision.
 */
public final class Erf {
    private static final double STEP = 1.0 / 32;
    private static final double LIMIT = 6.0;
    private static final int ORDER = 9;
    private static final double TWO_OVER_SQRT_PI = 2.0 / Math.sqrt(Math.PI);
    private static final double[][] TABLE = table();

    private Erf() {
    }

    public static double erf(double x) {
        double a = Math.abs(x);
        if (Double.isNaN(a)) {
            return a;
        }
        double r;
        if (a >= LIMIT) {
            r = 1.0;
        } else {
            int k = (int) (a / STEP + 0.5);
            double d = a - k * STEP;
            double[] c = TABLE[k];
            r = c[ORDER];
            for (int n = ORDER - 1; n >= 0; n--) {
                r = r * d + c[n];
            }
        }
        return x < 0 ? -r : r;
    }

    /** Row k: erf(x0) and the Taylor coefficients f^(n)(x0) / n!, n = 1..ORDER, at x0 = k * STEP. */
    private static double[][] table() {
        int rows = (int) Math.round(LIMIT / STEP) + 1;
        double[][] t = new double[rows][ORDER + 1];
        for (int k = 0; k < rows; k++) {
            double x0 = k * STEP;
            double g = TWO_OVER_SQRT_PI * Math.exp(-x0 * x0);
            double[] hermite = new double[ORDER];
            hermite[0] = 1.0;
            hermite[1] = 2 * x0;
            for (int m = 1; m + 1 < ORDER; m++) {
                hermite[m + 1] = 2 * x0 * hermite[m] - 2 * m * hermite[m - 1];
            }
            t[k][0] = seed(x0);
            double factorial = 1.0;
            for (int n = 1; n <= ORDER; n++) {
                factorial *= n;
                // d^n/dx^n erf = (-1)^(n-1) H_(n-1)(x) * 2/sqrt(pi) * exp(-x^2)
                t[k][n] = ((n & 1) == 1 ? 1 : -1) * hermite[n - 1] * g / factorial;
            }
        }
        return t;
    }

    /** erf(x) for 0 <= x <= 6, slowly but to double precision. */
    static double seed(double x) {
        if (x < 2.5) {
            // 2/sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n+1)); at most ~3 digits lost to cancellation below 2.5
            double x2 = x * x;
            double term = x;
            double sum = x;
            for (int n = 1; n < 200; n++) {
                term *= -x2 / n;
                double add = term / (2 * n + 1);
                sum += add;
                if (Math.abs(add) <= 1e-17 * Math.abs(sum)) {
                    break;
                }
            }
            return sum * TWO_OVER_SQRT_PI;
        }
        // erfc(x) = exp(-x^2)/sqrt(pi) / (x + (1/2)/(x + (2/2)/(x + (3/2)/(x + ...)))), evaluated from deep down
        double f = x;
        for (int k = 120; k >= 1; k--) {
            f = x + (k / 2.0) / f;
        }
        return 1.0 - Math.exp(-x * x) / Math.sqrt(Math.PI) / f;
    }
}
