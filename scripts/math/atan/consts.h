/* atan(r) = r + r t P(t), t = r^2, |r| <= 1/2: P = atan_p[0] + atan_p[1] t + ..., degree 5,
 * minimax for the error relative to atan(r) (2.8e-10, 2^-31.7) */
static const float atan_p[] = {-0x1.555552p-2f, 0x1.999744p-3f, -0x1.245030p-3f, 0x1.c07268p-4f, -0x1.480d40p-4f, 0x1.3fd554p-5f};
/* pi/4 = ATAN_PIO4_HI + ATAN_PIO4_LO (to 3e-15); HI has 22 bits, so k HI is exact for k = 0, ..., 4 */
static const float ATAN_PIO4_HI = 0x1.921fb8p-1f;
static const float ATAN_PIO4_LO = -0x1.5dde98p-24f;
/* atan: |x| >= ATAN_HUGE gives ATAN_PIO2, the f32 nearest pi/2 (and atan(x) rounds to it there) */
static const float ATAN_PIO2 = 0x1.921fb6p+0f;
static const float ATAN_HUGE = 0x1.000000p+26f;
/* bitcast(ATAN_RCP_K - bits(h)) ~ 1/h (within 5.1%) for normal h: the correction's divisor */
#define ATAN_RCP_K 0x7ef311c2
/* atan2: |x| and |y| are multiplied by ATAN2_DOWN where the larger is >= ATAN2_BIG, else by ATAN2_UP */
static const float ATAN2_BIG = 0x1p+64f;
static const float ATAN2_DOWN = 0x1p-32f;
static const float ATAN2_UP = 0x1p+60f;
/* atan2: t = r^2 < ATAN2_TINY (|r| < 2^-30, and where an operand is infinite) drops the correction */
static const float ATAN2_TINY = 0x1p-60f;
