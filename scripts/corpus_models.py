"""The real models of thunky's corpus (scripts/make-corpus.py): a Llama-style
decoder, its AdamW train step, inference (prefill, and decode in a while
loop), a mixture-of-experts layer with all-to-all, a ring collective
matmul, and a GELU MLP's train step. Each program is a function to jit and the arguments to lower it
with: arrays where it runs on the GPU that is there (its outputs become
the corpus's reference), shapes where it is only compiled.

jax is imported inside the functions, so that the driver's --list works
without it.
"""
import collections

Size = collections.namedtuple(
    "Size", "vocab dim layers heads kv_heads ffn seq batch dtype")

# tiny runs on the GPU (inputs and JAX's outputs are kept); 125m and 1b are
# compiled only (their parameters alone are 0.5 and 4 GB in f32).
SIZES = {
    "tiny": Size(vocab=128, dim=32, layers=2, heads=4, kv_heads=2, ffn=64, seq=16, batch=2,
                 dtype="float32"),
    "125m": Size(vocab=32000, dim=768, layers=12, heads=12, kv_heads=4, ffn=2048, seq=512,
                 batch=8, dtype="bfloat16"),
    "1b": Size(vocab=32000, dim=2048, layers=16, heads=32, kv_heads=8, ffn=8192, seq=1024,
               batch=8, dtype="bfloat16"),
}


def parameter_count(size):
    head = size.dim // size.heads
    attention = size.dim * head * (2 * size.heads + 2 * size.kv_heads)
    return 2 * size.vocab * size.dim + size.layers * (attention + 3 * size.dim * size.ffn
                                                      + 2 * size.dim) + size.dim


# ---------------------------------------------------------------------------
# The decoder: RMSNorm, RoPE, grouped-query attention through
# jax.nn.dot_product_attention, SwiGLU. Layer weights are stacked on a
# leading axis, so that the same parameters serve a scan and an unrolled
# loop.

def parameter_shapes(size):
    head = size.dim // size.heads
    L, D, F = size.layers, size.dim, size.ffn
    return {
        "embed": (size.vocab, D),
        "layers": {
            "attention_norm": (L, D), "mlp_norm": (L, D),
            "wq": (L, D, size.heads * head), "wk": (L, D, size.kv_heads * head),
            "wv": (L, D, size.kv_heads * head), "wo": (L, size.heads * head, D),
            "w_gate": (L, D, F), "w_up": (L, D, F), "w_down": (L, F, D),
        },
        "final_norm": (D,),
        "unembed": (D, size.vocab),
    }


def rms_norm(x, weight):
    import jax
    import jax.numpy as jnp
    x32 = x.astype(jnp.float32)
    scale = jax.lax.rsqrt(jnp.mean(x32 * x32, axis=-1, keepdims=True) + 1e-6)
    return (x32 * scale).astype(x.dtype) * weight


def rope(x, positions):
    """x: [batch, seq, heads, head]; positions: [batch, seq]."""
    import jax.numpy as jnp
    half = x.shape[-1] // 2
    frequencies = 10000.0 ** (-jnp.arange(half, dtype=jnp.float32) / half)
    angles = positions[..., None].astype(jnp.float32) * frequencies
    sin, cos = jnp.sin(angles)[:, :, None, :], jnp.cos(angles)[:, :, None, :]
    x1, x2 = x[..., :half].astype(jnp.float32), x[..., half:].astype(jnp.float32)
    return jnp.concatenate([x1 * cos - x2 * sin, x2 * cos + x1 * sin], -1).astype(x.dtype)


def attention(layer, x, positions, size, cache=None, at=None):
    """Self-attention; with a cache (keys, values: [batch, max, kv, head]),
    writes this step's keys and values at `at` and attends to every
    position up to it."""
    import jax
    import jax.numpy as jnp
    B, T, _ = x.shape
    head = size.dim // size.heads
    q = (x @ layer["wq"]).reshape(B, T, size.heads, head)
    k = (x @ layer["wk"]).reshape(B, T, size.kv_heads, head)
    v = (x @ layer["wv"]).reshape(B, T, size.kv_heads, head)
    q, k = rope(q, positions), rope(k, positions)
    if cache is None:
        out = jax.nn.dot_product_attention(q, k, v, is_causal=True)
    else:
        keys = jax.lax.dynamic_update_slice(cache[0], k, (0, at, 0, 0))
        values = jax.lax.dynamic_update_slice(cache[1], v, (0, at, 0, 0))
        # Query t sits at position at + t and sees every key up to it.
        visible = jnp.arange(keys.shape[1])[None, :] <= at + jnp.arange(T)[:, None]
        out = jax.nn.dot_product_attention(q, keys, values, mask=visible[None, None])
        cache = (keys, values)
    return out.reshape(B, T, size.heads * head) @ layer["wo"], cache


def block(layer, x, positions, size, cache=None, at=None):
    import jax
    h, cache = attention(layer, rms_norm(x, layer["attention_norm"]), positions, size, cache, at)
    x = x + h
    y = rms_norm(x, layer["mlp_norm"])
    x = x + (jax.nn.silu(y @ layer["w_gate"]) * (y @ layer["w_up"])) @ layer["w_down"]
    return x, cache


def forward(params, tokens, size, scan=True):
    """Logits [batch, seq, vocab] for tokens [batch, seq]."""
    import jax
    import jax.numpy as jnp
    x = params["embed"][tokens]
    positions = jnp.broadcast_to(jnp.arange(tokens.shape[1]), tokens.shape)
    if scan:
        x, _ = jax.lax.scan(lambda h, layer: (block(layer, h, positions, size)[0], None), x,
                            params["layers"])
    else:
        for i in range(size.layers):
            layer = jax.tree.map(lambda a: a[i], params["layers"])
            x = block(layer, x, positions, size)[0]
    return rms_norm(x, params["final_norm"]) @ params["unembed"]


def loss(params, tokens, size, scan=True):
    import jax
    import jax.numpy as jnp
    logits = forward(params, tokens[:, :-1], size, scan).astype(jnp.float32)
    targets = tokens[:, 1:]
    picked = jnp.take_along_axis(jax.nn.log_softmax(logits), targets[..., None], -1)
    return -jnp.mean(picked)


def train_step(params, moments, velocities, step, tokens, size, scan=True):
    """One AdamW step (decoupled weight decay, bias-corrected), moments in
    f32; returns the new parameters, moments, step and the loss."""
    import jax
    import jax.numpy as jnp
    value, grads = jax.value_and_grad(loss)(params, tokens, size, scan)
    step = step + 1
    b1, b2, lr, decay = 0.9, 0.95, 3e-4, 0.1
    moments = jax.tree.map(lambda m, g: b1 * m + (1 - b1) * g.astype(jnp.float32), moments, grads)
    velocities = jax.tree.map(lambda v, g: b2 * v + (1 - b2) * jnp.square(g.astype(jnp.float32)),
                              velocities, grads)
    t = step.astype(jnp.float32)

    def update(p, m, v):
        m_hat, v_hat = m / (1 - b1 ** t), v / (1 - b2 ** t)
        p32 = p.astype(jnp.float32)
        return (p32 - lr * (m_hat / (jnp.sqrt(v_hat) + 1e-8) + decay * p32)).astype(p.dtype)

    return jax.tree.map(update, params, moments, velocities), moments, velocities, step, value


def prefill(params, tokens, size):
    """The prompt's logits for its last position and the filled key/value
    cache ([layers, batch, seq, kv, head] each)."""
    import jax
    import jax.numpy as jnp
    B, T = tokens.shape
    head = size.dim // size.heads
    empty = jnp.zeros((size.layers, B, T, size.kv_heads, head), params["embed"].dtype)
    positions = jnp.broadcast_to(jnp.arange(T), tokens.shape)

    def layer_step(x, layer_and_cache):
        layer, keys, values = layer_and_cache
        x, (keys, values) = block(layer, x, positions, size, (keys, values), 0)
        return x, (keys, values)

    x, cache = jax.lax.scan(layer_step, params["embed"][tokens], (params["layers"], empty, empty))
    logits = rms_norm(x[:, -1], params["final_norm"]) @ params["unembed"]
    return logits, cache


def decode(params, cache, first, start, stop, size):
    """Greedy decoding in a while loop whose trip count is an argument:
    from position `start` to `stop`, each step one token through every
    layer against the cache. Returns the tokens made ([batch, max]) and the
    cache."""
    import jax
    import jax.numpy as jnp
    keys, values = cache
    B, limit = first.shape[0], keys.shape[2]
    made = jnp.zeros((B, limit), jnp.int32).at[:, 0].set(first)

    def one(state):
        at, made, keys, values = state
        token = jax.lax.dynamic_slice(made, (0, at - start), (B, 1))
        positions = jnp.full((B, 1), at)

        def layer_step(x, layer_and_cache):
            layer, k, v = layer_and_cache
            x, (k, v) = block(layer, x, positions, size, (k, v), at)
            return x, (k, v)

        x, (keys, values) = jax.lax.scan(layer_step, params["embed"][token],
                                         (params["layers"], keys, values))
        logits = rms_norm(x[:, -1], params["final_norm"]) @ params["unembed"]
        following = jnp.argmax(logits, -1).astype(jnp.int32)
        made = jax.lax.dynamic_update_slice(made, following[:, None], (0, at - start + 1))
        return at + 1, made, keys, values

    _, made, keys, values = jax.lax.while_loop(lambda s: s[0] < stop, one,
                                               (start, made, keys, values))
    return made, (keys, values)


# ---------------------------------------------------------------------------
# Programs over several GPUs, written per device with shard_map.

def moe_layer(x, router, w_in, w_out, axis):
    """Top-1 mixture of experts, one expert per device: tokens go to their
    expert's device by all-to-all and come back by another. Per device: x
    [tokens, dim], router [dim, experts], w_in [1, dim, ffn], w_out
    [1, ffn, dim]."""
    import jax
    import jax.numpy as jnp
    tokens, experts = x.shape[0], router.shape[1]
    capacity = 2 * tokens // experts
    gates = jax.nn.softmax((x @ router).astype(jnp.float32))
    chosen = jax.nn.one_hot(jnp.argmax(gates, -1), experts)
    slot = (jnp.cumsum(chosen, 0) - 1) * chosen
    kept = chosen * (slot < capacity)
    dispatch = kept[:, :, None] * jax.nn.one_hot(slot.astype(jnp.int32), capacity)
    sent = jnp.einsum("tec,td->ecd", dispatch, x.astype(jnp.float32)).astype(x.dtype)
    received = jax.lax.all_to_all(sent, axis, 0, 0, tiled=True)
    hidden = jax.nn.gelu(jnp.einsum("ecd,df->ecf", received, w_in[0]))
    answered = jax.lax.all_to_all(jnp.einsum("ecf,fd->ecd", hidden, w_out[0]), axis, 0, 0,
                                  tiled=True)
    weight = jnp.sum(gates * kept, -1)[:, None, None]
    return jnp.einsum("tec,ecd->td", dispatch * weight, answered.astype(jnp.float32)).astype(
        x.dtype)


def ring_matmul(a, b, axis, devices):
    """all_gather(a) @ b, the gather done as a ring of collective permutes
    beside the multiplies: each step multiplies the block it holds and
    passes it on. Per device: a [rows, k], b [k, columns]."""
    import jax
    import jax.numpy as jnp
    me, rows = jax.lax.axis_index(axis), a.shape[0]
    ring = [(j, (j + 1) % devices) for j in range(devices)]

    def one(i, state):
        out, held = state
        owner = (me - i) % devices
        out = jax.lax.dynamic_update_slice(out, held @ b, (owner * rows, 0))
        return out, jax.lax.ppermute(held, axis, ring)

    # Made from `a`, so that shard_map types it as varying over the axis,
    # as the loop's updates make it (a plain zeros would not match them).
    out = jnp.broadcast_to(a[0, 0] * 0, (devices * rows, b.shape[1]))
    return jax.lax.fori_loop(0, devices, one, (out, a))[0]


# ---------------------------------------------------------------------------
# A two-layer MLP with biases and GELU in its tanh form, one SGD step: the
# pattern XLA fuses into cuBLASLt epilogues with cuBLASLt on, as JAX 0.11's
# XLA has it (a bias and GELU, GELU keeping its input for the backward
# pass, a bias alone), where its autotuner picks cuBLASLt over Triton.

MLP = {"batch": 256, "dim": 512, "hidden": 2048}


def program_parameters(build, size_name):
    """How many parameters a program trains or runs with; 0 where it has
    none of its own (the collective programs)."""
    if size_name in SIZES:
        return parameter_count(SIZES[size_name])
    if build == "gelu-mlp":
        return (2 * MLP["dim"] + 1) * MLP["hidden"] + MLP["dim"]
    return 0


def gelu_mlp_train(params, x, target):
    """(loss, updated params) for x [batch, dim] against target [batch, dim]."""
    import jax
    import jax.numpy as jnp

    def loss(p):
        hidden = jax.nn.gelu(x @ p["w1"] + p["b1"], approximate=True)
        return jnp.mean((hidden @ p["w2"] + p["b2"] - target) ** 2)

    value, grads = jax.value_and_grad(loss)(params)
    return value, jax.tree.map(lambda p, g: p - 0.01 * g, params, grads)


def gelu_mlp_arguments(np, rng):
    batch, dim, hidden = MLP["batch"], MLP["dim"], MLP["hidden"]

    def draw(*shape):
        return (rng.standard_normal(shape) * 0.05).astype(np.float32)

    params = {"w1": draw(dim, hidden), "b1": draw(hidden), "w2": draw(hidden, dim),
              "b2": draw(dim)}
    return [params, draw(batch, dim), draw(batch, dim)]
