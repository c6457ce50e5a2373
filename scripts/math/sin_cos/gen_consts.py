# Generates/validates the constants for the sin/cos design (mpmath, 400-bit precision).
from mpmath import mp, mpf, pi, floor
mp.prec = 600

def f32_hex(v):
    # v must be exactly representable in f32 (checked)
    import struct
    f = struct.unpack('<f', struct.pack('<f', float(v)))[0]
    assert mpf(f) == v, (v, f)
    return float(f).hex().replace('0x1.', '0x1.').rstrip() , f

def f64_exact(v):
    d = float(v)
    assert mpf(d) == v, ("not exact f64", v)
    return d

twoopi = 2/pi
# chunk boundaries: chunk 0 = 15 bits (weights 2^-1..2^-15), then 24-bit chunks
b = [0, 15] + [15 + 24*j for j in range(1, 12)]
chunks = []
for j in range(len(b)-1):
    lo, hi = b[j], b[j+1]
    c = int(floor(twoopi * mpf(2)**hi)) - (int(floor(twoopi * mpf(2)**lo)) << (hi-lo))
    chunks.append((c, hi))
# verify reconstruction
acc = sum(mpf(c) * mpf(2)**(-hi) for c, hi in chunks)
assert abs(acc - twoopi) < mpf(2)**(-b[-1]+1)
print("2/pi chunks: F_j = c_j * 2^-b_{j+1}")
for j,(c,hi) in enumerate(chunks[:8]):
    F = f64_exact(mpf(c) * mpf(2)**(-hi))
    print(f"  j={j} c={c:#010x} ({c}) bits={c.bit_length()} scale=2^-{hi}  F={F.hex()}  ({F!r})")
# tails: TAIL_i = round_f64( sum_{j>=i+3} F_j ) = round( 2/pi - sum_{j<i+3} F_j )
print("tails TAIL_i0 = RN64(2/pi - sum_{j<=i0+2} F_j):")
for i0 in range(5):
    head = sum(mpf(c)*mpf(2)**(-hi) for c,hi in chunks[:i0+3])
    t = twoopi - head
    d = float(t)
    print(f"  i0={i0} TAIL={d.hex()} ({d!r}) relerr={float((mpf(d)-t)/t):.3e}")
