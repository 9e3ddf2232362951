
J
4
ed0e56ab8b2a0ecb fd722ef1e7b7a1fe20ea2e37dfbd82c3
fe9062d0fff82a66@
@  (08X(a77e7c793abc0d0c923a9afb275058e2fe57a198