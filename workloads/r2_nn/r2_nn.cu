// Rodinia nn (R2D2 suite): the Euclidean distance of every record (a
// latitude/longitude pair, Rodinia's LatLong) to a target location, one
// thread per record in 1-D blocks of 256; the host picks the k nearest.
// The global index is Rodinia's, which folds a 2-D grid (used past 65535
// blocks) into one line.
struct LatLong {
  float lat;
  float lng;
};

extern "C" __global__ void r2_euclid(LatLong* d_locations, float* d_distances, int numRecords, float lat, float lng) {
  int globalId = blockDim.x * (gridDim.x * blockIdx.y + blockIdx.x) + threadIdx.x;
  LatLong* latLong = d_locations + globalId;
  if (globalId < numRecords) {
    float* dist = d_distances + globalId;
    *dist = (float)sqrtf((lat - latLong->lat) * (lat - latLong->lat) + (lng - latLong->lng) * (lng - latLong->lng));
  }
}
