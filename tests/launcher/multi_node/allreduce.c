/* The MPI program of tests/launcher/multi_node/mpi_rsh_test.cpp: every rank contributes
 * rank + 1 to an MPI_Allreduce; rank 0 prints the sum (n(n+1)/2 for n ranks) and the size. */
#include <mpi.h>
#include <stdio.h>

int main(int argc, char** argv) {
  int rank = 0;
  int size = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int mine = rank + 1;
  int sum = 0;
  MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    printf("sum=%d size=%d\n", sum, size);
    fflush(stdout);
  }
  MPI_Finalize();
  return 0;
}
