package ai.edgeranker.core;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads an ONNX model's graph straight from the protobuf wire format: the initializers (name, dims, type and
 * data) and the nodes (op type, inputs, outputs, numeric attributes). Enough for Encoder to find its weights
 * in the shipped model.onnx, so there is no second copy of them and no protobuf or ONNX library.
 * Field numbers are those of onnx.proto (ModelProto.graph = 7; GraphProto.node = 1, initializer = 5; ...).
 */
public final class OnnxWeights {
    public static final int FLOAT = 1;
    public static final int UINT8 = 2;
    public static final int INT8 = 3;
    public static final int INT32 = 6;
    public static final int INT64 = 7;
    public static final int BOOL = 9;
    public static final int FLOAT16 = 10;

    /** One initializer; its data stays a view of the model bytes until read. */
    public static final class Tensor {
        public String name;
        public long[] dims = new long[0];
        public int dataType;
        ByteBuffer raw;
        final List<Float> floatData = new ArrayList<>();
        final List<Long> intData = new ArrayList<>();  // int32_data (also int8, bool) or int64_data

        public int size() {
            long n = 1;
            for (long d : dims) {
                if (d < 0 || d > Integer.MAX_VALUE || (n *= d) > Integer.MAX_VALUE) {
                    throw new IllegalStateException(name + ": dims " + Arrays.toString(dims) + " hold no array");
                }
            }
            return (int) n;
        }

        /**
         * The number of values, checked against the data before anything is allocated: dims that claim more than
         * the data holds would underflow a buffer, or allocate gigabytes.
         */
        private int checkedSize() {
            int n = size();
            long have;
            if (raw != null) {
                int width;
                switch (dataType) {
                    case UINT8:
                    case INT8:
                        width = 1;
                        break;
                    case FLOAT16:
                        width = 2;
                        break;
                    case FLOAT:
                    case INT32:
                        width = 4;
                        break;
                    case INT64:
                        width = 8;
                        break;
                    default:
                        throw new IllegalStateException(name + ": unsupported data type " + dataType);
                }
                have = raw.remaining() / width;
                check(raw.remaining() % width == 0);
            } else {
                have = dataType == FLOAT ? floatData.size() : intData.size();
            }
            check(have == n);
            return n;
        }

        /** The values as fp32, whatever the stored type (int8 stays exact: it is the quantized integer). */
        public float[] floats() {
            int n = checkedSize();
            float[] out = new float[n];
            if (raw != null) {
                ByteBuffer b = raw.duplicate().order(ByteOrder.LITTLE_ENDIAN);
                for (int i = 0; i < n; i++) {
                    switch (dataType) {
                        case FLOAT:
                            out[i] = b.getFloat();
                            break;
                        case UINT8:
                            out[i] = b.get() & 0xff;
                            break;
                        case INT8:
                            out[i] = b.get();
                            break;
                        case INT32:
                            out[i] = b.getInt();
                            break;
                        case INT64:
                            out[i] = b.getLong();
                            break;
                        default:  // FLOAT16: checkedSize refused every type not listed
                            out[i] = half(b.getShort());
                    }
                }
            } else if (dataType == FLOAT) {
                for (int i = 0; i < n; i++) {
                    out[i] = floatData.get(i);
                }
            } else {
                for (int i = 0; i < n; i++) {  // int32_data holds a float16's bits, as it holds a uint8's value
                    long v = intData.get(i);
                    out[i] = dataType == FLOAT16 ? half((short) v) : v;
                }
            }
            return out;
        }

        /** An int8 or uint8 tensor's bytes as stored: a quarter of the memory of floats() for the word table. */
        public byte[] bytes() {
            if (dataType != INT8 && dataType != UINT8) {
                throw new IllegalStateException(name + " is not int8 or uint8");
            }
            byte[] out = new byte[checkedSize()];
            if (raw != null) {
                raw.duplicate().get(out);
            } else {
                for (int i = 0; i < out.length; i++) {
                    out[i] = (byte) (long) intData.get(i);
                }
            }
            return out;
        }

        /** The values as integers (shape constants). */
        public long[] longs() {
            float[] f = dataType == INT64 && raw != null ? null : floats();
            long[] out = new long[f == null ? checkedSize() : f.length];
            ByteBuffer b = raw == null ? null : raw.duplicate().order(ByteOrder.LITTLE_ENDIAN);
            for (int i = 0; i < out.length; i++) {
                out[i] = f == null ? b.getLong() : (long) f[i];
            }
            return out;
        }

        public float scalar() {
            float[] f = floats();
            if (f.length != 1) {
                throw new IllegalStateException(name + " is not a scalar");
            }
            return f[0];
        }

        private void check(boolean ok) {
            if (!ok) {
                throw new IllegalStateException(name + ": data does not match dims");
            }
        }
    }

    /** An IEEE 754 half-precision value's bits as the float it is (exact: every half is a float). */
    static float half(short bits) {
        int sign = (bits & 0x8000) << 16;
        int exponent = (bits >>> 10) & 0x1f;
        int mantissa = bits & 0x3ff;
        if (exponent == 0x1f) {  // infinity or NaN
            return Float.intBitsToFloat(sign | 0x7f800000 | (mantissa << 13));
        }
        if (exponent == 0) {  // zero or subnormal: mantissa * 2^-24
            float v = mantissa * 0x1p-24f;
            return sign == 0 ? v : -v;
        }
        return Float.intBitsToFloat(sign | ((exponent + 112) << 23) | (mantissa << 13));
    }

    public static final class Node {
        public String opType;
        public final List<String> inputs = new ArrayList<>();
        public final List<String> outputs = new ArrayList<>();
        /** Numeric attributes: f (float) or i (int) by name; lists and graphs are not needed here. */
        public final Map<String, Double> attributes = new HashMap<>();
    }

    public final Map<String, Tensor> initializers = new LinkedHashMap<>();
    public final List<Node> nodes = new ArrayList<>();

    private OnnxWeights() {
    }

    public static OnnxWeights read(byte[] model) {
        OnnxWeights w = new OnnxWeights();
        Reader m = new Reader(ByteBuffer.wrap(model));
        while (m.more()) {
            int tag = m.tag();
            if (tag >>> 3 == 7 && (tag & 7) == 2) {
                w.graph(m.message());
            } else {
                m.skip(tag);
            }
        }
        if (w.nodes.isEmpty()) {
            throw new IllegalArgumentException("not an ONNX model: no graph nodes");
        }
        return w;
    }

    public Tensor tensor(String name) {
        Tensor t = initializers.get(name);
        if (t == null) {
            throw new IllegalArgumentException("model has no initializer " + name);
        }
        return t;
    }

    /** The node that outputs value, or null for a graph input or initializer. */
    public Node producer(String value) {
        for (Node n : nodes) {
            if (n.outputs.contains(value)) {
                return n;
            }
        }
        return null;
    }

    /** The nodes of type op that read value. */
    public List<Node> consumers(String value, String op) {
        List<Node> out = new ArrayList<>();
        for (Node n : nodes) {
            if (n.opType.equals(op) && n.inputs.contains(value)) {
                out.add(n);
            }
        }
        return out;
    }

    private void graph(Reader g) {
        while (g.more()) {
            int tag = g.tag();
            int field = tag >>> 3;
            if (field == 1 && (tag & 7) == 2) {
                nodes.add(node(g.message()));
            } else if (field == 5 && (tag & 7) == 2) {
                Tensor t = tensor(g.message());
                initializers.put(t.name, t);
            } else {
                g.skip(tag);
            }
        }
    }

    private static Node node(Reader r) {
        Node n = new Node();
        while (r.more()) {
            int tag = r.tag();
            switch (tag >>> 3) {
                case 1:
                    n.inputs.add(r.string());
                    break;
                case 2:
                    n.outputs.add(r.string());
                    break;
                case 4:
                    n.opType = r.string();
                    break;
                case 5:
                    attribute(r.message(), n.attributes);
                    break;
                default:
                    r.skip(tag);
            }
        }
        return n;
    }

    private static void attribute(Reader r, Map<String, Double> into) {
        String name = null;
        Double value = null;
        while (r.more()) {
            int tag = r.tag();
            int field = tag >>> 3;
            if (field == 1) {
                name = r.string();
            } else if (field == 2 && (tag & 7) == 5) {
                value = (double) Float.intBitsToFloat(r.fixed32());
            } else if (field == 3 && (tag & 7) == 0) {
                value = (double) r.varint();
            } else {
                r.skip(tag);
            }
        }
        if (name != null && value != null) {
            into.put(name, value);
        }
    }

    private static Tensor tensor(Reader r) {
        Tensor t = new Tensor();
        List<Long> dims = new ArrayList<>();
        while (r.more()) {
            tensorField(r, r.tag(), t, dims);
        }
        t.dims = dims.stream().mapToLong(Long::longValue).toArray();
        if (t.dataType == INT32 || t.dataType == INT8 || t.dataType == BOOL) {
            t.intData.replaceAll(v -> (long) (int) (long) v);  // int32_data holds sign-extended varints
        }
        return t;
    }

    /** One field of a TensorProto, read into t (dims: its dims as they come). */
    private static void tensorField(Reader r, int tag, Tensor t, List<Long> dims) {
        int wire = tag & 7;
        switch (tag >>> 3) {
            case 1:
                r.varints(wire, dims);
                break;
            case 2:
                t.dataType = (int) r.varint();
                break;
            case 4:
                r.floats(wire, t.floatData);
                break;
            case 5:
            case 7:
                r.varints(wire, t.intData);
                break;
            case 8:
                t.name = r.string();
                break;
            case 9:
                t.raw = r.bytes();
                break;
            case 14:
                if (r.varint() != 0) {
                    throw new IllegalArgumentException("external tensor data is not supported");
                }
                break;
            default:
                r.skip(tag);
        }
    }

    /** A cursor over one protobuf message. */
    private static final class Reader {
        private final ByteBuffer b;

        Reader(ByteBuffer b) {
            this.b = b;
        }

        boolean more() {
            return b.hasRemaining();
        }

        int tag() {
            return (int) varint();
        }

        long varint() {
            long v = 0;
            for (int shift = 0; shift < 64 && b.hasRemaining(); shift += 7) {
                byte x = b.get();
                v |= (long) (x & 0x7f) << shift;
                if (x >= 0) {
                    return v;
                }
            }
            throw new IllegalArgumentException("malformed varint");
        }

        int fixed32() {
            return b.order(ByteOrder.LITTLE_ENDIAN).getInt(advance(4));
        }

        ByteBuffer bytes() {
            int at = advance(varint());
            ByteBuffer out = b.duplicate();  // no call chain: Android's Buffer.position returns a Buffer
            out.limit(b.position());
            out.position(at);
            return out.slice();
        }

        /** Moves past n bytes, returning where they start: a length past the message's end is a malformed model. */
        private int advance(long n) {
            int at = b.position();
            if (n < 0 || n > b.remaining()) {
                throw new IllegalArgumentException("malformed ONNX model: a field of " + n + " bytes runs past its end");
            }
            b.position(at + (int) n);
            return at;
        }

        Reader message() {
            return new Reader(bytes());
        }

        String string() {
            ByteBuffer s = bytes();
            byte[] a = new byte[s.remaining()];
            s.get(a);
            return new String(a, StandardCharsets.UTF_8);
        }

        /** A repeated integer field, packed (wire type 2) or not. */
        void varints(int wire, List<Long> into) {
            if (wire == 2) {
                Reader p = message();
                while (p.more()) {
                    into.add(p.varint());
                }
            } else {
                into.add(varint());
            }
        }

        /** A repeated float field, packed or not. */
        void floats(int wire, List<Float> into) {
            if (wire == 2) {
                ByteBuffer p = bytes().order(ByteOrder.LITTLE_ENDIAN);
                if (p.remaining() % 4 != 0) {
                    throw new IllegalArgumentException("malformed ONNX model: packed floats of " + p.remaining() + " bytes");
                }
                while (p.hasRemaining()) {
                    into.add(p.getFloat());
                }
            } else {
                into.add(Float.intBitsToFloat(fixed32()));
            }
        }

        void skip(int tag) {
            switch (tag & 7) {
                case 0:
                    varint();
                    break;
                case 1:
                    advance(8);
                    break;
                case 2:
                    bytes();
                    break;
                case 5:
                    advance(4);
                    break;
                default:
                    throw new IllegalArgumentException("unsupported protobuf wire type " + (tag & 7));
            }
        }
    }
}
