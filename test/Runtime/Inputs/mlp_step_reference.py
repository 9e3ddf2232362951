"""JAX's MLP step (scripts/make-jax-containers.py, part step), in float64
numpy, written from the JAX program and not from its HLO: the forward pass
h = tanh(h @ w) over four layers, the loss mean(h ** 2), its gradient by
hand, and w - 0.01 * grad.

  mlp_step_reference.py inputs DIR       DIR/in0.npy, DIR/in1.npy as the
                                         fixture's maker draws them
  mlp_step_reference.py check IN OUT     OUT/out0.npy and out1.npy against
                                         the reference for IN's inputs

check prints the worst error of the new weights, of the gradient they
imply ((w - new) / 0.01) and of the loss, each relative to the largest
reference value, and exits 1 past TOLERANCE: float32 arithmetic in another
order stays far inside it, while a wrong layer, buffer or iteration is off
by the size of the values themselves."""
import sys

import numpy as np

LAYERS, WIDTH, BATCH, SEED = 4, 512, 256, 0
TOLERANCE = {"weights": 1e-6, "gradient": 1e-2, "loss": 1e-5}


def inputs(folder):
    rng = np.random.RandomState(SEED)
    weights = rng.standard_normal((LAYERS, WIDTH, WIDTH)).astype(np.float32) / np.sqrt(WIDTH)
    x = rng.standard_normal((BATCH, WIDTH)).astype(np.float32)
    np.save(folder + "/in0.npy", weights.astype(np.float32))
    np.save(folder + "/in1.npy", x)


def step(weights, x):
    hs = [x]
    for w in weights:
        hs.append(np.tanh(hs[-1] @ w))
    loss = np.mean(hs[-1] ** 2)
    dh = 2 * hs[-1] / hs[-1].size
    grads = np.zeros_like(weights)
    for layer in reversed(range(len(weights))):
        dz = dh * (1 - hs[layer + 1] ** 2)
        grads[layer] = hs[layer].T @ dz
        dh = dz @ weights[layer].T
    return grads, loss


def check(folder_in, folder_out):
    weights = np.load(folder_in + "/in0.npy").astype(np.float64)
    x = np.load(folder_in + "/in1.npy").astype(np.float64)
    new = np.load(folder_out + "/out0.npy")
    loss = np.load(folder_out + "/out1.npy")
    if new.shape != weights.shape or new.dtype != np.float32 or loss.shape != ():
        print("outputs have shapes %s %s and type %s" % (new.shape, loss.shape, new.dtype))
        return 1
    grads, ref_loss = step(weights, x)
    ref_new = weights - 0.01 * grads
    errors = {
        "weights": np.max(np.abs(new - ref_new)) / np.max(np.abs(ref_new)),
        "gradient": np.max(np.abs((weights - new) / 0.01 - grads)) / np.max(np.abs(grads)),
        "loss": abs(float(loss) - ref_loss) / abs(ref_loss),
    }
    failed = 0
    for what, error in errors.items():
        ok = error <= TOLERANCE[what]
        failed |= not ok
        print("%s: worst relative error %.1e (tolerance %.0e)%s"
              % (what, error, TOLERANCE[what], "" if ok else ": WRONG"))
    return failed


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "inputs":
        inputs(sys.argv[2])
    elif len(sys.argv) == 4 and sys.argv[1] == "check":
        sys.exit(check(sys.argv[2], sys.argv[3]))
    else:
        sys.exit(__doc__)
