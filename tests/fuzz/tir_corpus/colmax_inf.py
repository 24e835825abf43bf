@T.prim_func
def colmax(A: T.Buffer((64, 16), "float32"), B: T.Buffer((16,), "float32")):
    for k, j in T.grid(64, 16):
        with T.block("B"):
            vk, vj = T.axis.remap("RS", [k, j])
            with T.init():
                B[vj] = T.float32("-inf")
            B[vj] = T.max(B[vj], A[vk, vj] + T.float32("nan") * T.float32("inf"))
