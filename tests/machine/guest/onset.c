/* The ear of the machine tier: captures a loopback device in small periods at real-time
 * priority, keeps every frame in a raw file (so a sound can be checked whole afterwards) and
 * prints one line per onset: the CLOCK_MONOTONIC time (ns) the frames arrived, and the index
 * of the first frame over the threshold, counted from the capture's first frame.
 *
 *   onset DEVICE RAW_OUT [THRESHOLD] [REARM_MS]
 *
 * An onset is the first sample whose magnitude exceeds THRESHOLD (default 64) after at least
 * REARM_MS (default 40) of frames under it. Stops on SIGTERM/SIGINT. Stereo s16le 44.1 kHz. */
#include <alsa/asoundlib.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#define RATE 44100
#define CHANNELS 2
#define PERIOD 64

static volatile sig_atomic_t stopping;

static void on_signal(int sig) { (void)sig; stopping = 1; }

static long long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: onset DEVICE RAW_OUT [THRESHOLD] [REARM_MS]\n");
        return 2;
    }
    int threshold = argc > 3 ? atoi(argv[3]) : 64;
    long rearm = (argc > 4 ? atol(argv[4]) : 40) * RATE / 1000;
    FILE *raw = fopen(argv[2], "wb");
    if (!raw) { perror(argv[2]); return 1; }

    struct sched_param sp = { .sched_priority = 80 };
    if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0) perror("SCHED_FIFO (carrying on)");
    mlockall(MCL_CURRENT | MCL_FUTURE);
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);

    snd_pcm_t *pcm;
    int err = snd_pcm_open(&pcm, argv[1], SND_PCM_STREAM_CAPTURE, 0);
    if (err < 0) { fprintf(stderr, "open %s: %s\n", argv[1], snd_strerror(err)); return 1; }
    snd_pcm_hw_params_t *hw;
    snd_pcm_hw_params_alloca(&hw);
    snd_pcm_hw_params_any(pcm, hw);
    snd_pcm_hw_params_set_access(pcm, hw, SND_PCM_ACCESS_RW_INTERLEAVED);
    snd_pcm_hw_params_set_format(pcm, hw, SND_PCM_FORMAT_S16_LE);
    snd_pcm_hw_params_set_channels(pcm, hw, CHANNELS);
    snd_pcm_hw_params_set_rate(pcm, hw, RATE, 0);
    snd_pcm_uframes_t period = PERIOD, buffer = PERIOD * 64;
    snd_pcm_hw_params_set_period_size_near(pcm, hw, &period, 0);
    snd_pcm_hw_params_set_buffer_size_near(pcm, hw, &buffer);
    if ((err = snd_pcm_hw_params(pcm, hw)) < 0) {
        fprintf(stderr, "hw params: %s\n", snd_strerror(err));
        return 1;
    }
    fprintf(stderr, "onset: %s period %lu buffer %lu\n", argv[1], period, buffer);
    printf("ready\n");
    fflush(stdout);

    short frames[PERIOD * CHANNELS];
    long long index = 0, quiet = rearm, xruns = 0;
    while (!stopping) {
        snd_pcm_sframes_t got = snd_pcm_readi(pcm, frames, PERIOD);
        long long arrived = now_ns();
        if (got < 0) {
            if (got == -EINTR) continue;
            xruns++;
            if (snd_pcm_recover(pcm, (int)got, 1) < 0) break;
            continue;
        }
        fwrite(frames, sizeof(short) * CHANNELS, (size_t)got, raw);
        for (snd_pcm_sframes_t i = 0; i < got; i++) {
            int s = frames[i * CHANNELS];
            if (s > threshold || s < -threshold) {
                if (quiet >= rearm) {
                    printf("onset %lld %lld\n", arrived, index + i);
                    fflush(stdout);
                }
                quiet = 0;
            } else {
                quiet++;
            }
        }
        index += got;
    }
    fclose(raw);
    printf("frames %lld xruns %lld\n", index, xruns);
    snd_pcm_close(pcm);
    return 0;
}
