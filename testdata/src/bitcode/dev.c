/* A device library packaged into several offload images. */
int dev_total;
int dev_step(int v) { dev_total += v; return dev_total; }
