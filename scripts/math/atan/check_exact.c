/*
 * check_exact.c: the steps README.md calls exact, and the ranges the other
 * steps rely on, checked for atan on every positive f32 where they matter
 * (1/2 < x < ATAN_HUGE: the middle and the outer reduction; below 1/2, r = x
 * and e = 0) and for atan2 on model.c's pairs (every class). Products and
 * differences are compared in long double (64-bit significand, wide enough
 * for each of them); each fast two-sum (a + b = s + err exactly when
 * |a| >= |b| or a = 0) is checked for its condition.
 *
 *   gcc -O2 -ffp-contract=off check_exact.c -lm -lpthread && ./a.out [PAIRS]    (default 10^8 a class)
 */
#pragma GCC optimize("fp-contract=off")
#define main model_main
#include "model.c"
#undef main

static _Thread_local unsigned long long nbad[20], nseen[20]; /* each thread's, summed at the end */
static const char *const what[20] = {
    "atan: a - 1 exact (1/2 < a <= 2)",
    "atan: ap1 + dl0 = a + 1 exactly",
    "atan: e0 = num - r den exactly",
    "atan: |r| <= 1/2",
    "atan: h normal, below 2^125 (ATAN_RCP_K)",
    "atan: k HI exact",
    "atan: |C| >= |r| or C = 0 (s)",
    "atan2: mxs, mns = mx S, mn S exactly (t >= TINY)",
    "atan2: dn = mns - mxs exact (middle)",
    "atan2: mxs >= mns, sm finite (sm)",
    "atan2: sm + dl0 = mxs + mns exactly",
    "atan2: e0 = num - r den exactly (t >= TINY)",
    "atan2: |r| <= 1/2",
    "atan2: h normal, below 2^125 (t >= TINY)",
    "atan2: k HI exact, k in 0..4",
    "atan2: |C| >= |r| or C = 0 (s)",
    "atan2: middle iff 1/2 < mn/mx (finite, mx > 0)",
    "", "", ""};

#define EXPECT(i, c) (nseen[i]++, nbad[i] += !(c))

static int normal_rcp(float h) /* bitcast(K - bits(h)) is within 5.1% of 1/h */
{
	return h >= 0x1p-126f && h < 0x1p+125f;
}

static void atan_steps(float a)
{
	int mid = a > 0.5f, big = a > 2.0f;
	float am1 = a - 1.0f, ap1 = a + 1.0f;
	float dl0 = a - (ap1 - 1.0f);
	if (mid && !big) {
		EXPECT(0, (long double)am1 == (long double)a - 1.0L);
		EXPECT(1, (long double)ap1 + dl0 == (long double)a + 1.0L);
	}
	float num = big ? -1.0f : mid ? am1 : a;
	float den = big ? a : mid ? ap1 : 1.0f;
	float r = num / den;
	float e0 = fmaf(-r, den, num);
	EXPECT(2, (long double)e0 == (long double)num - (long double)r * den);
	EXPECT(3, fabsf(r) <= 0.5f);
	EXPECT(4, normal_rcp(fmaf(r, num, den)));
	float k = big ? 2.0f : mid ? 1.0f : 0.0f;
	float C = k * ATAN_PIO4_HI;
	EXPECT(5, (long double)C == (long double)k * ATAN_PIO4_HI);
	EXPECT(6, C == 0.0f || fabsf(C) >= fabsf(r));
}

static void atan2_steps(float y, float x)
{
	if (!isfinite(x) || !isfinite(y) || (x == 0 && y == 0))
		return; /* r is 0 and the correction dropped (inf), or r0 = 0/0 replaced (zeros) */
	float ax = fabsf(x), ay = fabsf(y);
	int sw = ay > ax;
	float mx = sw ? ay : ax, mn = sw ? ax : ay;
	float S = mx >= ATAN2_BIG ? ATAN2_DOWN : ATAN2_UP;
	float mxs = mx * S, mns = mn * S;
	float dn = mns - mxs;
	int mid = !((mns + dn) <= 0.0f);
	EXPECT(16, mid == ((long double)mn / mx > 0.5L));
	if (mid)
		EXPECT(8, (long double)dn == (long double)mns - mxs);
	float v = mid ? dn : mns;
	float sx = copysignf(1.0f, x);
	float num = v * (sx * (sw ? -1.0f : 1.0f));
	float sm = mxs + mns;
	float dl0 = mns - (sm - mxs);
	if (mid) {
		EXPECT(9, mxs >= mns && isfinite(sm));
		EXPECT(10, (long double)sm + dl0 == (long double)mxs + mns);
	}
	float den = mid ? sm : mxs;
	float r = num / den;
	float t = r * r;
	if (!(t < ATAN2_TINY)) {
		EXPECT(7, (long double)mxs == (long double)mx * S && (long double)mns == (long double)mn * S);
		float e0 = fmaf(-r, den, num);
		EXPECT(11, (long double)e0 == (long double)num - (long double)r * den);
		EXPECT(13, normal_rcp(fmaf(r, num, den)));
	}
	EXPECT(12, fabsf(r) <= 0.5f);
	float f = mid ? -1.0f : sw ? 0.0f : -2.0f;
	float k = fmaf(sx, f, 2.0f);
	float C = k * ATAN_PIO4_HI;
	EXPECT(14, (k == 0 || k == 1 || k == 2 || k == 3 || k == 4) && (long double)C == (long double)k * ATAN_PIO4_HI);
	EXPECT(15, C == 0.0f || fabsf(C) >= fabsf(r));
}

typedef struct {
	int cls, id;
	uint64_t n;
	unsigned long long bad[20], seen[20];
} CJob;

static void *cworker(void *vp)
{
	CJob *J = vp;
	if (J->cls < 0) { /* atan: positive f32 from 1/2 to ATAN_HUGE, this thread's half */
		for (uint32_t u = bits(0.5f) + (uint32_t)J->id; u < bits(ATAN_HUGE); u += NT)
			atan_steps(fbits(u));
	} else {
		uint64_t s = 0x2545f4914f6cdd1dull * (uint64_t)(J->cls + 7) + (uint64_t)J->id;
		for (uint64_t i = 0; i < J->n; i++) {
			float y, x;
			pair(J->cls, &s, &y, &x);
			atan2_steps(y, x);
		}
	}
	memcpy(J->bad, nbad, sizeof nbad);
	memcpy(J->seen, nseen, sizeof nseen);
	return NULL;
}

int main(int argc, char **argv)
{
	uint64_t n = argc > 1 ? (uint64_t)strtod(argv[1], NULL) : 100000000;
	unsigned long long bad_all[20] = {0}, seen_all[20] = {0};
	for (int cls = -1; cls < NCLASS; cls++) { /* -1: atan */
		CJob J[NT];
		pthread_t th[NT];
		for (int i = 0; i < NT; i++) {
			memset(&J[i], 0, sizeof J[i]);
			J[i].cls = cls, J[i].id = i, J[i].n = n / NT;
			pthread_create(&th[i], NULL, cworker, &J[i]);
		}
		for (int i = 0; i < NT; i++) {
			pthread_join(th[i], NULL);
			for (int j = 0; j < 20; j++)
				bad_all[j] += J[i].bad[j], seen_all[j] += J[i].seen[j];
		}
	}
	int bad = 0;
	for (int i = 0; i < 20; i++)
		if (what[i][0]) {
			printf("%-52s %12llu checked, %llu failed\n", what[i], seen_all[i], bad_all[i]);
			bad += bad_all[i] != 0;
		}
	printf("%s\n", bad ? "FAILED" : "all hold");
	return bad != 0;
}
