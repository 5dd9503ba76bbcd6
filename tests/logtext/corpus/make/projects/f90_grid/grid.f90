module grid_mod
  implicit none
contains
  subroutine smooth(a, n)
    integer, intent(in) :: n
    real, intent(inout) :: a(n)
    integer :: i
    real :: prev, cur
    prev = a(1)
    do i = 2, n - 1
      cur = a(i)
      a(i) = (prev + a(i) + a(i + 1)) / 3.0
      prev = cur
    end do
  end subroutine smooth
end module grid_mod

program grid
  use grid_mod
  implicit none
  real :: cells(5) = [1.0, 4.0, 2.0, 8.0, 5.0]
  call smooth(cells, 5)
  print '(5F8.3)', cells
end program grid
