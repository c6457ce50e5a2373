# Independent check of the slow-path reduction (Python doubles + mpmath reference):
# for the hard cases in hard.txt (both signs) and random f32 above 2^16, compare r = rh + rl
# against the exact x - n*pi/2 and check n mod 4.
import struct, math, random
from mpmath import mp, mpf, pi, nint
mp.prec = 400
F = [float.fromhex('0x1.45fp-1'), float.fromhex('0x1.836e4ep-16'), float.fromhex('0x1.1054ap-42'), float.fromhex('0x1.fc2756p-64'), float.fromhex('0x1.d1f534p-88'), float.fromhex('0x1.bb81b4p-113'), float.fromhex('0x1.629598p-136')]
T = [float.fromhex('0x1.fc2757d1f534ep-64'), float.fromhex('0x1.d1f534ddc0db6p-88'), float.fromhex('0x1.bb81b6c52b328p-113'), float.fromhex('0x1.6295993c43904p-136'), float.fromhex('0x1.3c439041fe516p-160')]
def f32(v): return struct.unpack('<f', struct.pack('<f', v))[0]
def slow(x):
    E = (struct.unpack('<I', struct.pack('<f', x))[0] >> 23) & 0xff
    i0 = (E >= 167) + (E >= 191) + (E >= 215) + (E >= 239)
    t0, t1, t2, t3 = x*F[i0], x*F[i0+1], x*F[i0+2], x*T[i0]
    a = t0 - 4.0*math.floor(t0*0.25); b = t1 - 4.0*math.floor(t1*0.25)   # exact (== the fma form)
    h = a + b
    qm = (h + t2) + float.fromhex('0x1.8p52'); q = qm - float.fromhex('0x1.8p52')
    f = ((h - q) + t2) + t3
    rd = f * float.fromhex('0x1.921fb54442d18p+0')
    rh = f32(rd); rl = f32(rd - rh)
    n = struct.unpack('<Q', struct.pack('<d', qm))[0] & 3
    return rh, rl, n, (h - q), t2   # last two for exactness checks
worst = 0; worst_x = None; bad = 0; cnt = 0
def check(x):
    global worst, worst_x, bad, cnt
    rh, rl, n, _, _ = slow(x)
    X = mpf(x); k = nint(X*2/pi); rex = X - k*pi/2
    if int(k) % 4 != n: bad += 1; print("quadrant mismatch", x.hex(), int(k) % 4, n)
    rel = abs((mpf(rh) + mpf(rl) - rex)/rex)
    cnt += 1
    if rel > worst: worst, worst_x = rel, x
xs = []
for line in open('hard.txt'):
    E, m, hx, l2 = line.split(); E = int(E)
    if E >= 143: xs.append(math.ldexp(int(m), E - 150))
random.seed(1)
for _ in range(20000):
    E = random.randint(143, 254); xs.append(math.ldexp(random.randint(1 << 23, (1 << 24) - 1), E - 150))
for x in xs:
    check(x); check(-x)
print(f"{cnt} inputs, quadrant mismatches {bad}, max rel error of rh+rl: {float(worst):.3e} (2^{float(mp.log(worst,2)):.1f}) at {worst_x.hex()}")
