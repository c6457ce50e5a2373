# Re-derives every constant of model.c with mpmath and checks the literals in model.c (and in
# gpu_check.cu) against them.  Prints "ALL CONSTANTS OK" on success.
import re, struct
from mpmath import mp, mpf, pi, floor
mp.prec = 800
src = open('model.c').read()
defs = dict(re.findall(r'#define\s+(\w+)\s+(-?0x[0-9a-fA-F.]+p[+-]?\d+f?)', src))
def val(name):
    s = defs[name]; return mpf(float.fromhex(s.rstrip('f')))
def is_f32(v): return mpf(struct.unpack('<f', struct.pack('<f', float(v)))[0]) == v
def rn32(v): return mpf(struct.unpack('<f', struct.pack('<f', float(v)))[0])   # float(v) is RN64, then RN32: fine unless double rounding; checked below
def rd32(v):
    w = rn32(v)
    if w > v:
        b = struct.unpack('<I', struct.pack('<f', float(w)))[0]; w = mpf(struct.unpack('<f', struct.pack('<I', b - 1 if w > 0 else b + 1))[0])
    return w
ok = True
def chk(name, expect, f32=False):
    global ok
    v = val(name); good = (v == expect) and (not f32 or is_f32(v))
    if name in defs and f32 and not defs[name].endswith('f'): good = False
    print(f"{'ok ' if good else 'BAD'} {name:12s} {defs[name]:26s} = {mp.nstr(v, 20)}")
    ok &= good
h = pi/2; topi = 2/pi
chk('TWO_OVER_PI', rn32(topi), True)
chk('RND_MAGIC_F', mpf(3)*2**22, True)
P1 = rd32(h); P2 = rd32(h - P1); P3 = rn32(h - P1 - P2)
chk('PIO2_1', P1, True); chk('PIO2_2', P2, True); chk('PIO2_3', P3, True)
print('   pi/2 - (P1+P2+P3) =', mp.nstr(h - P1 - P2 - P3, 5), '; all three > 0:', P1 > 0 and P2 > 0 and P3 > 0)
b = [0, 15] + [15 + 24*j for j in range(1, 8)]
Fs = []
for j in range(7):
    c = int(floor(topi * mpf(2)**b[j+1])) - (int(floor(topi * mpf(2)**b[j])) << (b[j+1] - b[j]))
    Fj = mpf(c) * mpf(2)**(-b[j+1]); Fs.append(Fj)
    assert c < 2**(b[j+1]-b[j])
    print(f"   c_{j} = {c:#08x} = {c} ({c.bit_length()} bits), scale 2^-{b[j+1]}")
    chk(f'F_{j}', Fj)
for i in range(5):
    exact = topi - sum(Fs[:i+3]); d = mpf(float(exact))   # float() of an mpf is correctly rounded (RN64)
    chk(f'TAIL_{i}', d)
chk('RND_MAGIC_D', mpf(3)*2**51)
chk('PIO2_D', mpf(float(h)))
for n in ['S1','S2','S3','S4','C2','C3','C4']:
    v = val(n); good = is_f32(v) and defs[n].endswith('f'); ok &= good
    print(f"{'ok ' if good else 'BAD'} {n:12s} {defs[n]:26s} = {mp.nstr(v, 12)} (f32-representable: {is_f32(v)})")
# the same literals in gpu_check.cu
g = open('gpu_check.cu').read()
for n in ['TWO_OVER_PI','PIO2_1','PIO2_2','PIO2_3','F_0','F_1','F_2','F_3','F_4','F_5','F_6','TAIL_0','TAIL_1','TAIL_2','TAIL_3','TAIL_4','PIO2_D','S1','S2','S3','S4','C2','C3','C4']:
    lit = defs[n].lstrip('-')
    if lit not in g: print('BAD literal missing in gpu_check.cu:', n, lit); ok = False
print('ALL CONSTANTS OK' if ok else 'SOME CONSTANT IS WRONG')
