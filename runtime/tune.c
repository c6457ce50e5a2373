/*
 * tune.c: tilec_autotune, Triton's autotuner for C callers.
 *
 * For each configuration: lay its defines and warps/stages over the
 * caller's options, compile (tilec_compile: the context's cache), launch
 * once and synchronise (a configuration that fails either way is skipped,
 * its message kept), then `warmup` untimed launches and `reps` launches
 * between CUDA events, and keep the median.  The winner's index and every
 * median are remembered in the context under a key of everything that
 * could change the choice: the source, the kernel, the options, the
 * configurations and the values of the scalar arguments (pointers are
 * left out: the same problem in other buffers runs the same).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "cuda_api.h"

#define MAX_CONFIGS 256
#define MAX_DEFINES 64

struct RtTuned {
	RtTuned *next;
	char *key;
	int best;
	int n;
	double *ms;
};

void rt_tuned_free(RtTuned *t)
{
	while (t) {
		RtTuned *next = t->next;
		free(t->key);
		free(t->ms);
		free(t);
		t = next;
	}
}

/* opts with the configuration laid over it; defines go to buf (MAX_DEFINES). */
static tilec_options merged(const tilec_options *opts, const tilec_config *c, tilec_define *buf)
{
	tilec_options o = opts ? *opts : (tilec_options){0};
	int n = 0;
	for (int i = 0; opts && i < opts->ndefines; i++)
		buf[n++] = opts->defines[i];
	for (int i = 0; i < c->ndefines; i++) {
		int j = 0;
		while (j < n && strcmp(buf[j].name, c->defines[i].name) != 0)
			j++;
		buf[j] = c->defines[i];
		n += j == n;
	}
	o.defines = buf;
	o.ndefines = n;
	if (c->num_warps)
		o.num_warps = c->num_warps;
	if (c->num_stages)
		o.num_stages = c->num_stages;
	return o;
}

const char *rt_bad_tuning(const tilec_options *opts, const tilec_tuning *t, int *which)
{
	const char *bad = rt_bad_options(opts);
	*which = -1;
	if (bad)
		return bad;
	if (!t)
		return "tuning is NULL";
	if (!t->configs || t->nconfigs < 1 || t->nconfigs > MAX_CONFIGS)
		return "tuning: configs is NULL or nconfigs is not from 1 to 256";
	if (!t->grid)
		return "tuning: grid is NULL";
	if (t->warmup < 0 || t->reps < 0)
		return "tuning: warmup and reps must not be negative";
	if (opts && opts->ndefines > MAX_DEFINES)
		return "options: more than 64 defines";
	for (int i = 0; i < t->nconfigs; i++) {
		const tilec_config *c = &t->configs[i];
		*which = i;
		if (c->ndefines < 0 || (c->ndefines > 0 && !c->defines) || c->ndefines > MAX_DEFINES)
			return "defines is NULL or ndefines is not from 0 to 64";
		for (int j = 0; j < c->ndefines; j++)
			if (!c->defines[j].name)
				return "a define has a NULL name";
		tilec_define buf[2 * MAX_DEFINES];
		tilec_options o = merged(opts, c, buf);
		if ((bad = rt_bad_options(&o)) != NULL)
			return bad;
	}
	*which = -1;
	return NULL;
}

/* The key text: every input the choice depends on, the source last. */
static char *tuning_key(const char *source, const char *name, const tilec_options *opts, const tilec_tuning *t,
                        const tilec_arg *args, int nargs)
{
	StrBuf b = {0};
	sb_printf(&b, "%s\n%s\n", name ? name : "", opts && opts->arch ? opts->arch : "");
	for (int i = 0; i < t->nconfigs; i++) {
		tilec_define buf[2 * MAX_DEFINES];
		tilec_options o = merged(opts, &t->configs[i], buf);
		sb_printf(&b, "config %d %d", o.num_warps, o.num_stages);
		for (int j = 0; j < o.ndefines; j++)
			sb_printf(&b, " %s=%lld", o.defines[j].name, (long long)o.defines[j].value);
		sb_printf(&b, "\n");
	}
	for (int i = 0; i < nargs; i++)
		switch (args[i].kind) {
		case TILEC_ARG_I32: sb_printf(&b, "i32 %d\n", (int)args[i].v.i32); break;
		case TILEC_ARG_I64: sb_printf(&b, "i64 %lld\n", (long long)args[i].v.i64); break;
		case TILEC_ARG_F32: sb_printf(&b, "f32 %a\n", (double)args[i].v.f32); break;
		case TILEC_ARG_F64: sb_printf(&b, "f64 %a\n", args[i].v.f64); break;
		case TILEC_ARG_PTR: sb_printf(&b, "ptr\n"); break;
		}
	sb_printf(&b, "%s", source);
	return b.s;
}

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;
	return (x > y) - (x < y);
}

/*
 * Median milliseconds of k's launches on this configuration's grid, or -1
 * with the reason in why and its status in *st (the kernel failed to
 * launch or to run).
 */
static double time_config(tilec_context *ctx, tilec_kernel *k, const unsigned g[3], const tilec_tuning *t,
                          const tilec_arg *args, int nargs, char *why, size_t whylen, tilec_status *st)
{
	int warmup = t->warmup ? t->warmup : 3, reps = t->reps ? t->reps : 10;
	CUevent ev[2] = {NULL, NULL};
	float *ts = malloc(sizeof *ts * (size_t)reps);
	double ms = -1;
	CUresult r = CUDA_SUCCESS;
	const char *what = "cuEventCreate";
	*st = TILEC_ERROR_CUDA;
	if (!ts) {
		snprintf(why, whylen, "out of memory");
		*st = TILEC_ERROR_INVALID;
		return -1;
	}
	/* the first launch compiles this argument specialisation and loads it */
	for (int i = 0; i < 1 + warmup; i++)
		if ((*st = tilec_launch(k, g[0], g[1], g[2], t->stream, args, nargs)) != TILEC_OK) {
			snprintf(why, whylen, "%s", tilec_context_error(ctx));
			goto out;
		}
	if ((r = rt_make_current(ctx)) != CUDA_SUCCESS || (r = rt_cu.EventCreate(&ev[0], 0)) != CUDA_SUCCESS ||
	    (r = rt_cu.EventCreate(&ev[1], 0)) != CUDA_SUCCESS)
		goto cuda_failed;
	for (int i = 0; i < reps; i++) {
		what = "cuEventRecord";
		if ((r = rt_cu.EventRecord(ev[0], (CUstream)t->stream)) != CUDA_SUCCESS)
			goto cuda_failed;
		if ((*st = tilec_launch(k, g[0], g[1], g[2], t->stream, args, nargs)) != TILEC_OK) {
			snprintf(why, whylen, "%s", tilec_context_error(ctx));
			goto out;
		}
		what = "the kernel (cuEventSynchronize)";
		if ((r = rt_cu.EventRecord(ev[1], (CUstream)t->stream)) != CUDA_SUCCESS ||
		    (r = rt_cu.EventSynchronize(ev[1])) != CUDA_SUCCESS)
			goto cuda_failed;
		what = "cuEventElapsedTime";
		if ((r = rt_cu.EventElapsedTime(&ts[i], ev[0], ev[1])) != CUDA_SUCCESS)
			goto cuda_failed;
	}
	qsort(ts, (size_t)reps, sizeof *ts, cmp_float);
	ms = ts[reps / 2];
	*st = TILEC_OK;
	goto out;
cuda_failed:
	rt_cuda_msg(why, whylen, what, r);
	*st = TILEC_ERROR_CUDA;
out:
	for (int i = 0; i < 2; i++)
		if (ev[i])
			rt_cu.EventDestroy(ev[i]);
	free(ts);
	return ms;
}

/* A new entry of the context's cache, owning key and ms; NULL if out of memory (the caller keeps them). */
static RtTuned *remember(tilec_context *ctx, char *key, int best, double *ms, int n)
{
	RtTuned *e = calloc(1, sizeof *e);
	if (!e)
		return NULL;
	*e = (RtTuned){.next = *rt_tuned_list(ctx), .key = key, .best = best, .n = n, .ms = ms};
	*rt_tuned_list(ctx) = e;
	return e;
}

tilec_status tilec_autotune(tilec_context *ctx, const char *source, const char *kernel_name,
                            const tilec_options *opts, const tilec_tuning *tuning,
                            const tilec_arg *args, int nargs, int *best, double *ms, tilec_kernel **out)
{
	tilec_status st = rt_ready(ctx, "tilec_autotune");
	if (out)
		*out = NULL;
	if (st != TILEC_OK)
		return st;
	int which = -1;
	const char *bad = !source ? "source is NULL" : !out ? "out is NULL" :
	                  (nargs > 0 && !args) || nargs < 0 ? "args is NULL or nargs is negative" :
	                  rt_bad_tuning(opts, tuning, &which);
	if (bad) {
		if (which >= 0)
			rt_set_error(ctx, "tilec_autotune: config %d: %s", which, bad);
		else
			rt_set_error(ctx, "tilec_autotune: %s", bad);
		return TILEC_ERROR_INVALID;
	}
	int n = tuning->nconfigs;
	char *key = tuning_key(source, kernel_name, opts, tuning, args, nargs);
	if (!key) {
		rt_set_error(ctx, "tilec_autotune: out of memory");
		return TILEC_ERROR_INVALID;
	}
	RtTuned *hit = *rt_tuned_list(ctx);
	while (hit && strcmp(hit->key, key) != 0)
		hit = hit->next;
	/* a new search times into `times`, which the cache takes with the key */
	double *times = hit ? NULL : malloc(sizeof *times * (size_t)n);
	StrBuf why = {0};
	tilec_status fail = TILEC_OK; /* the last skipped configuration's */
	int win = hit ? hit->best : -1;
	tilec_kernel *k = NULL;
	tilec_define buf[2 * MAX_DEFINES];
	if (!hit && !times) {
		rt_set_error(ctx, "tilec_autotune: out of memory");
		free(key);
		return TILEC_ERROR_INVALID;
	}
	for (int i = 0; !hit && i < n; i++) {
		const tilec_config *c = &tuning->configs[i];
		tilec_options o = merged(opts, c, buf);
		char msg[1024] = "";
		times[i] = -1;
		if ((st = tilec_compile(ctx, source, kernel_name, &o, &k)) != TILEC_OK) {
			snprintf(msg, sizeof msg, "%s", tilec_context_error(ctx));
		} else {
			unsigned g[3] = {1, 1, 1};
			tuning->grid(c, tuning->user, g);
			times[i] = time_config(ctx, k, g, tuning, args, nargs, msg, sizeof msg, &st);
			tilec_kernel_destroy(k);
			k = NULL;
		}
		if (times[i] < 0) {
			sb_printf(&why, "\n  config %d: %s", i, msg);
			fail = st;
		} else if (win < 0 || times[i] < times[win]) {
			win = i;
		}
	}
	if (win < 0) {
		rt_set_error(ctx, "tilec_autotune: no configuration ran:%s", why.s ? why.s : "");
		st = fail;
		goto done;
	}
	tilec_options o = merged(opts, &tuning->configs[win], buf);
	if ((st = tilec_compile(ctx, source, kernel_name, &o, &k)) != TILEC_OK)
		goto done;
	if (!hit && !(hit = remember(ctx, key, win, times, n))) {
		tilec_kernel_destroy(k);
		rt_set_error(ctx, "tilec_autotune: out of memory");
		st = TILEC_ERROR_INVALID;
		goto done;
	}
	if (hit->key == key) { /* the cache's now */
		key = NULL;
		times = NULL;
	}
	if (best)
		*best = win;
	if (ms)
		memcpy(ms, hit->ms, sizeof *ms * (size_t)n);
	*out = k;
done:
	if (st != TILEC_OK && ms && times)
		memcpy(ms, times, sizeof *ms * (size_t)n);
	free(times);
	free(why.s);
	free(key);
	return st;
}
