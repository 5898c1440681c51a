C     A damped step of a fixed-point iteration: the toy routine the
C     Fortran example of fpforge tests.
      DOUBLE PRECISION FUNCTION DSTEP(X, H, N)
      DOUBLE PRECISION X, H
      INTEGER N
      DOUBLE PRECISION S, T
      INTEGER I
      S = 0.0D0
      IF (X .LT. 0.0D0) THEN
         T = -X
      ELSE IF (X .GT. 1.0D3) THEN
         T = LOG(X)
      ELSE
         T = SQRT(X)
      END IF
      DO 10 I = 1, N
         S = S + T**I / DBLE(I)
         IF (S .GT. H) GO TO 20
   10 CONTINUE
   20 DSTEP = S * H**2.5D0
      RETURN
      END

      SUBROUTINE DNORM(N, X, R)
      INTEGER N
      DOUBLE PRECISION X(N), R
      INTEGER I
      R = 0.0D0
      DO 30 I = 1, N
         R = R + X(I)**2
   30 CONTINUE
      R = SQRT(R)
      END
