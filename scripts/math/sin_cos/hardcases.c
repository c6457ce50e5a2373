/* Finds, for every f32 binade 2^(E-127) (E = 126..254), the K positive f32 values x = m*2^(E-150)
   (m in [2^23,2^24)) whose x*2/pi is closest to an integer, i.e. x closest to a multiple of pi/2.
   dist(x) = |x*2/pi - nearest integer|, computed with 128-bit fixed point (error < 2^-100).
   Usage: ./hardcases [K] > hard.txt   (needs twoopi_hex.txt: 2/pi in hex, 1024 fraction bits)
   Output lines: E m x_hex log2(dist) (dist in units of pi/2, i.e. |r| = dist*pi/2). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <stdint.h>
typedef unsigned __int128 u128;
static int bits[1100];
static u128 frac_bits(int k) { /* bits k+1 .. k+128 of 2/pi (bit 1 = 2^-1), bits at index <=0 are 0 */
  u128 a = 0;
  for (int i = 1; i <= 128; i++) { int idx = k + i; a = (a << 1) | (u128)((idx >= 1 && idx <= 1024) ? bits[idx] : 0); }
  return a;
}
int main(int argc, char **argv) {
  int K = argc > 1 ? atoi(argv[1]) : 16;
  FILE *f = fopen("twoopi_hex.txt", "r"); char hex[400]; if (!f || !fgets(hex, sizeof hex, f)) return 1;
  for (int i = 0; i < 256; i++) { int c = hex[i]; int v = c <= '9' ? c - '0' : c - 'a' + 10;
    for (int b = 0; b < 4; b++) bits[4*i + b + 1] = (v >> (3 - b)) & 1; }
  for (int E = 126; E <= 254; E++) {
    int e = E - 150;
    u128 A = frac_bits(e);           /* frac(2^e * 2/pi) * 2^128 */
    u128 best[64]; uint32_t bm[64]; int n = 0;
    for (uint32_t m = 1u << 23; m < (1u << 24); m++) {
      u128 d = (u128)m * A;          /* wraps mod 2^128 = frac(m*alpha) */
      u128 nd = (u128)0 - d; if (nd < d) d = nd;
      if (n < K || d < best[n-1]) {
        int i = n < K ? n++ : K - 1;
        while (i > 0 && best[i-1] > d) { best[i] = best[i-1]; bm[i] = bm[i-1]; i--; }
        best[i] = d; bm[i] = m;
      }
    }
    for (int i = 0; i < n; i++) {
      double dd = ldexp((double)(uint64_t)(best[i] >> 64), -64) + ldexp((double)(uint64_t)best[i], -128);
      float x = ldexpf((float)bm[i], e);
      printf("%d %u %a %.3f\n", E, bm[i], x, log2(dd));
    }
  }
  return 0;
}
