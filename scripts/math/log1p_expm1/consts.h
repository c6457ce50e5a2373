/* log1p: 1 + x = 2^k (m + c 2^-k), m in [2/3, 4/3) (its bits less LOG1P_M0 shifted right by 23 are k),
 * f = m - 1; log1p(x) = k ln2 + f - f^2/2 + f^3 P(f) + c 2^-k / m, ln2 = LOG1P_LN2_HI + LOG1P_LN2_LO */
#define LOG1P_M0 0x3f2aaaab
#define LOG1P_LN2_HI 0x1.62e400p-1
#define LOG1P_LN2_LO 0x1.7f7d1cp-20
#define LOG1P_TINY 0x1p-25
static const float log1p_p[] = {0x1.555558p-2f, -0x1.fffefep-3f, 0x1.999684p-3f, -0x1.559c5ap-3f, 0x1.251448p-3f, -0x1.f3281cp-4f, 0x1.b55e96p-4f, -0x1.07f540p-3f, 0x1.f90560p-4f};
/* expm1: x = j ln2 + f, j = rint(x EXPM1_LOG2E), ln2 = EXPM1_LN2_HI + EXPM1_LN2_LO;
 * expm1(x) = 2^j (1 + f + f^2/2 + f^3 Q(f)) - 1; x clamped to [EXPM1_XMIN, EXPM1_XMAX], +inf above */
#define EXPM1_LOG2E 0x1.715476p+0
#define EXPM1_LN2_HI 0x1.62e430p-1
#define EXPM1_LN2_LO -0x1.05c610p-29
#define EXPM1_XMAX 0x1.62e42ep+6
#define EXPM1_XMIN -0x1.000000p+5
#define EXPM1_TINY 0x1p-25
static const float expm1_q[] = {0x1.555554p-3f, 0x1.5554eep-5f, 0x1.111380p-7f, 0x1.6d4516p-10f, 0x1.9d0350p-13f};
