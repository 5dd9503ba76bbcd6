object Calc {
  sealed trait Expr
  case class Num(v: Double) extends Expr
  case class Add(a: Expr, b: Expr) extends Expr
  case class Mul(a: Expr, b: Expr) extends Expr
  case class Div(a: Expr, b: Expr) extends Expr

  def eval(e: Expr): Double = e match {
    case Num(v)    => v
    case Add(a, b) => eval(a) + eval(b)
    case Mul(a, b) => eval(a) * eval(b)
    case Div(a, b) =>
      val d = eval(b)
      if (d == 0) throw new ArithmeticException("division by zero in " + e)
      eval(a) / d
  }

  def main(args: Array[String]): Unit = {
    val exprs = List(Add(Num(1), Num(2)), Mul(Num(3), Num(4)), Div(Num(1), Num(4)))
    exprs.foreach(x => println(x + " = " + eval(x)))
  }
}
