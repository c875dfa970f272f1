import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * DaCapo-Scala-like scalac and scaladoc work on Debian's Scala 2.11: the
 * compiler (scala.tools.nsc.Main, in process) compiles, or scaladoc
 * (scala.tools.nsc.ScalaDoc) documents, a generated code base of
 * 1 + MODULES source files over and over, until the JVM is ended or for
 * the seconds given. The first argument chooses: scalac or scaladoc; the
 * third, if given, is MODULES (default 19: 20 files, 6 700 lines; the
 * cct agent, which makes the VM interpret everything, gets fewer).
 *
 * DaCapo's scalac and scaladoc process scalap's sources (about 20 files,
 * a few thousand lines); no Scala sources are packaged for Debian, so the
 * code base is generated to resemble scalap: a parser-combinator library
 * (rules/Rules.scala: covariant results, by-name alternatives, implicit
 * conversions, a case class named ~) and MODULES modules, each with a
 * sealed AST of case classes, a parser built from the combinators,
 * type-class printers with implicit parameters and an implicit value
 * class, an evaluator over Either projections, a simplifier of nested
 * patterns, a covariant collection extending Iterable, an Enumeration, a
 * byte reader, phases with abstract type members and dependent method
 * types, stackable traits, for-comprehensions, f-interpolation and
 * partial functions, with scaladoc comments; each module calls the next.
 */
public class ScalaDriver {
    static final int MODULES = 19;

    static final String RULES = """
            package gen.rules

            import scala.language.implicitConversions

            /** The outcome of a [[Rule]]: a value and the position after it, or a failure. */
            sealed abstract class Result[+A] {
              def map[B](f: A => B): Result[B]
              def flatMap[B](f: A => Result[B]): Result[B]
              def orElse[B >: A](other: => Result[B]): Result[B]
              def toOption: Option[A]
              def isSuccess: Boolean = toOption.isDefined
            }

            /** A value and the position after it.
             *  @param value what the rule built
             *  @param rest the input position after the match */
            final case class Success[+A](value: A, rest: Int) extends Result[A] {
              def map[B](f: A => B): Result[B] = Success(f(value), rest)
              def flatMap[B](f: A => Result[B]): Result[B] = f(value)
              def orElse[B >: A](other: => Result[B]): Result[B] = this
              def toOption: Option[A] = Some(value)
            }

            /** No match at `at`. */
            final case class Failure(msg: String, at: Int) extends Result[Nothing] {
              def map[B](f: Nothing => B): Result[B] = this
              def flatMap[B](f: Nothing => Result[B]): Result[B] = this
              def orElse[B >: Nothing](other: => Result[B]): Result[B] = other match {
                case Failure(m, a) if a < at => this
                case r => r
              }
              def toOption: Option[Nothing] = None
            }

            /** A sequence of two matches, as `a ~ b`. */
            final case class ~[+A, +B](_1: A, _2: B) {
              override def toString: String = s"(${_1}~${_2})"
            }

            /** Characters by position. */
            trait Input {
              def at(i: Int): Option[Char]
              def length: Int
            }

            final class StringInput(s: String) extends Input {
              def at(i: Int): Option[Char] = if (i < s.length) Some(s.charAt(i)) else None
              def length: Int = s.length
            }

            /** A parser from a position of an [[Input]] to a [[Result]].
             *
             *  Rules combine by sequence (`~`, `~>`, `<~`), choice (`|`) and
             *  repetition (`*`, `+`, `?`), and map their values with `^^`. */
            abstract class Rule[+A] { self =>
              def apply(in: Input, pos: Int): Result[A]

              def map[B](f: A => B): Rule[B] = Rule((in, p) => self(in, p).map(f))
              def ^^[B](f: A => B): Rule[B] = map(f)
              def ^^^[B](b: => B): Rule[B] = map(_ => b)
              def flatMap[B](f: A => Rule[B]): Rule[B] = Rule { (in, p) =>
                self(in, p) match {
                  case Success(a, r) => f(a)(in, r)
                  case fl @ Failure(_, _) => fl
                }
              }
              def ~[B](next: => Rule[B]): Rule[A ~ B] = for (a <- this; b <- next) yield new ~(a, b)
              def ~>[B](next: => Rule[B]): Rule[B] = (this ~ next) ^^ { case _ ~ b => b }
              def <~[B](next: => Rule[B]): Rule[A] = (this ~ next) ^^ { case a ~ _ => a }
              def |[B >: A](other: => Rule[B]): Rule[B] = Rule((in, p) => self(in, p).orElse(other(in, p)))
              def * : Rule[List[A]] = Rule { (in, p) =>
                @annotation.tailrec def loop(pos: Int, acc: List[A]): Result[List[A]] = self(in, pos) match {
                  case Success(a, r) if r > pos => loop(r, a :: acc)
                  case _ => Success(acc.reverse, pos)
                }
                loop(p, Nil)
              }
              def + : Rule[List[A]] = (this ~ this.*) ^^ { case h ~ t => h :: t }
              def ? : Rule[Option[A]] = (this ^^ (a => Some(a): Option[A])) | Rules.unit(None)
              def filter(pred: A => Boolean): Rule[A] = Rule { (in, p) =>
                self(in, p) match {
                  case s @ Success(a, _) if pred(a) => s
                  case Success(_, r) => Failure("filtered", r)
                  case f => f
                }
              }
              def withFilter(pred: A => Boolean): Rule[A] = filter(pred)
              def named(name: String): Rule[A] = Rule { (in, p) =>
                self(in, p) match {
                  case Failure(_, at) => Failure(name, at)
                  case s => s
                }
              }
            }

            object Rule {
              def apply[A](f: (Input, Int) => Result[A]): Rule[A] = new Rule[A] {
                def apply(in: Input, pos: Int): Result[A] = f(in, pos)
              }
            }

            /** Rules over characters, and the implicit conversions of a `Char` or a
             *  `String` to the rule that matches it. */
            object Rules {
              def unit[A](a: => A): Rule[A] = Rule((_, p) => Success(a, p))
              def fail(msg: String): Rule[Nothing] = Rule((_, p) => Failure(msg, p))
              def elem(pred: Char => Boolean, what: String): Rule[Char] = Rule { (in, p) =>
                in.at(p) match {
                  case Some(c) if pred(c) => Success(c, p + 1)
                  case _ => Failure(what, p)
                }
              }
              implicit def char(c: Char): Rule[Char] = elem(_ == c, "'" + c + "'")
              implicit def string(s: String): Rule[String] =
                s.foldLeft(unit("")) { (r, c) => (r ~ char(c)) ^^ { case a ~ b => a + b } }
              val digit: Rule[Char] = elem(_.isDigit, "digit")
              val letter: Rule[Char] = elem(_.isLetter, "letter")
              val space: Rule[List[Char]] = elem(_.isWhitespace, "space").*
              val number: Rule[Int] = digit.+ ^^ (_.mkString.toInt)
              val ident: Rule[String] = (letter ~ (letter | digit).*) ^^ { case h ~ t => (h :: t).mkString }
              def token[A](r: Rule[A]): Rule[A] = space ~> r <~ space
              def sep[A](r: Rule[A], s: Rule[Any]): Rule[List[A]] =
                ((r ~ (s ~> r).*) ^^ { case h ~ t => h :: t }) | unit(Nil)
              def parseAll[A](r: Rule[A], s: String): Option[A] = {
                val in = new StringInput(s)
                r(in, 0) match {
                  case Success(a, n) if n == s.length => Some(a)
                  case _ => None
                }
              }
            }
            """;

    static final String MODULE = """
            package gen.m@I@

            import scala.annotation.tailrec
            import scala.collection.mutable
            import gen.rules._
            import gen.rules.Rules._

            /** Expressions of dialect @I@: what [[Parser@I@]] builds and [[Eval@I@]] evaluates. */
            sealed trait Expr@I@ extends Product with Serializable {
              /** The number of nodes. */
              def size: Int = this match {
                case Num@I@(_) | Var@I@(_) => 1
                case Bin@I@(_, l, r) => 1 + l.size + r.size
                case Call@I@(_, args) => 1 + args.map(_.size).sum
                case Let@I@(_, v, b) => 1 + v.size + b.size
                case If@I@(c, t, e) => 1 + c.size + t.size + e.size
              }
            }
            final case class Num@I@(value: Int) extends Expr@I@
            final case class Var@I@(name: String) extends Expr@I@
            final case class Bin@I@(op: String, left: Expr@I@, right: Expr@I@) extends Expr@I@
            final case class Call@I@(fn: String, args: List[Expr@I@]) extends Expr@I@
            final case class Let@I@(name: String, value: Expr@I@, body: Expr@I@) extends Expr@I@
            final case class If@I@(cond: Expr@I@, thenE: Expr@I@, elseE: Expr@I@) extends Expr@I@

            /** The grammar of dialect @I@, from [[gen.rules.Rules]]. */
            object Parser@I@ {
              lazy val expr: Rule[Expr@I@] = let | cond | sum
              lazy val let: Rule[Expr@I@] =
                ((token("let") ~> token(ident)) ~ (token("=") ~> expr) ~ (token("in") ~> expr)) ^^ {
                  case n ~ v ~ b => Let@I@(n, v, b)
                }
              lazy val cond: Rule[Expr@I@] =
                ((token("if") ~> expr) ~ (token("then") ~> expr) ~ (token("else") ~> expr)) ^^ {
                  case c ~ t ~ e => If@I@(c, t, e)
                }
              lazy val sum: Rule[Expr@I@] = chain(product, token("+") | token("-"))
              lazy val product: Rule[Expr@I@] = chain(atom, token("*") | token("/") | token("%"))
              lazy val atom: Rule[Expr@I@] =
                (token(number) ^^ Num@I@) | call | (token(ident) ^^ Var@I@) | (token("(") ~> expr <~ token(")"))
              lazy val call: Rule[Expr@I@] =
                (token(ident) ~ (token("(") ~> sep(expr, token(",")) <~ token(")"))) ^^ { case f ~ as => Call@I@(f, as) }
              /** Left-associative operators.
               *  @param operand the rule of an operand
               *  @param op the rule of an operator
               *  @return the rule of a chain of operands */
              def chain(operand: Rule[Expr@I@], op: Rule[String]): Rule[Expr@I@] =
                (operand ~ (op ~ operand).*) ^^ {
                  case first ~ rest => rest.foldLeft(first) { case (acc, o ~ e) => Bin@I@(o, acc, e) }
                }
              def parse(s: String): Either[String, Expr@I@] = parseAll(expr, s).toRight("no parse: " + s)
            }

            /** A printer of `A`s, found implicitly. */
            trait Pretty@I@[A] {
              def pretty(a: A, indent: Int): String
            }

            object Pretty@I@ {
              def apply[A](implicit p: Pretty@I@[A]): Pretty@I@[A] = p
              implicit val exprPretty: Pretty@I@[Expr@I@] = new Pretty@I@[Expr@I@] {
                def pretty(e: Expr@I@, indent: Int): String = {
                  val pad = " " * indent
                  e match {
                    case Num@I@(v) => pad + v
                    case Var@I@(n) => pad + n
                    case Bin@I@(op, l, r) => s"$pad(${pretty(l, 0)} $op ${pretty(r, 0)})"
                    case Call@I@(f, as) => as.map(pretty(_, 0)).mkString(pad + f + "(", ", ", ")")
                    case Let@I@(n, v, b) => s"${pad}let $n = ${pretty(v, 0)} in\\n${pretty(b, indent + 2)}"
                    case If@I@(c, t, el) => s"${pad}if ${pretty(c, 0)}\\n${pretty(t, indent + 2)}\\n${pad}else\\n${pretty(el, indent + 2)}"
                  }
                }
              }
              implicit def listPretty[A](implicit p: Pretty@I@[A]): Pretty@I@[List[A]] = new Pretty@I@[List[A]] {
                def pretty(as: List[A], indent: Int): String = as.map(p.pretty(_, indent)).mkString("\\n")
              }
              implicit def optionPretty[A: Pretty@I@]: Pretty@I@[Option[A]] = new Pretty@I@[Option[A]] {
                def pretty(o: Option[A], indent: Int): String = o.fold(" " * indent + "-")(Pretty@I@[A].pretty(_, indent))
              }
              implicit def pairPretty[A: Pretty@I@, B: Pretty@I@]: Pretty@I@[(A, B)] = new Pretty@I@[(A, B)] {
                def pretty(ab: (A, B), indent: Int): String =
                  Pretty@I@[A].pretty(ab._1, indent) + " -> " + Pretty@I@[B].pretty(ab._2, 0)
              }
              implicit val intPretty: Pretty@I@[Int] = new Pretty@I@[Int] {
                def pretty(i: Int, indent: Int): String = " " * indent + i
              }
              implicit class PrettyOps@I@[A](val a: A) extends AnyVal {
                def pretty(implicit p: Pretty@I@[A]): String = p.pretty(a, 0)
              }
            }

            /** Bindings of names to values, looked up outwards. */
            final class Env@I@ private (vars: Map[String, Int], val parent: Option[Env@I@]) {
              def lookup(n: String): Option[Int] = vars.get(n).orElse(parent.flatMap(_.lookup(n)))
              def bind(n: String, v: Int): Env@I@ = new Env@I@(Map(n -> v), Some(this))
              def depth: Int = parent.fold(0)(_.depth + 1)
            }

            object Env@I@ {
              val empty: Env@I@ = new Env@I@(Map.empty, None)
              def of(kv: (String, Int)*): Env@I@ = new Env@I@(kv.toMap, None)
            }

            class EvalError@I@(msg: String) extends RuntimeException(msg)

            /** Evaluation of [[Expr@I@]] to an `Int` or an error. */
            object Eval@I@ {
              type Fn = List[Int] => Int
              val builtins: Map[String, Fn] = Map(
                "max" -> ((xs: List[Int]) => if (xs.isEmpty) 0 else xs.max),
                "min" -> ((xs: List[Int]) => if (xs.isEmpty) 0 else xs.min),
                "sum" -> ((xs: List[Int]) => xs.sum),
                "len" -> ((xs: List[Int]) => xs.length),
                "gcd" -> ((xs: List[Int]) => xs.foldLeft(0)(gcd)),
                "f@J@" -> ((xs: List[Int]) => gen.m@J@.Eval@J@.fold(xs)))
              def fold(xs: List[Int]): Int = xs.foldLeft(@I@)((a, b) => a * 31 + b)
              def eval(e: Expr@I@, env: Env@I@): Either[String, Int] = e match {
                case Num@I@(v) => Right(v)
                case Var@I@(n) => env.lookup(n).toRight(s"unbound $n")
                case Bin@I@(op, l, r) =>
                  for {
                    a <- eval(l, env).right
                    b <- eval(r, env).right
                    v <- apply(op, a, b).right
                  } yield v
                case Call@I@(f, args) =>
                  val vs = args.map(eval(_, env))
                  vs.collectFirst { case Left(err) => err } match {
                    case Some(err) => Left(err)
                    case None => builtins.get(f).map(fn => fn(vs.collect { case Right(v) => v })).toRight(s"no function $f")
                  }
                case Let@I@(n, v, b) => eval(v, env).right.flatMap(x => eval(b, env.bind(n, x)))
                case If@I@(c, t, el) => eval(c, env).right.flatMap(x => if (x != 0) eval(t, env) else eval(el, env))
              }
              private def apply(op: String, a: Int, b: Int): Either[String, Int] = op match {
                case "+" => Right(a + b)
                case "-" => Right(a - b)
                case "*" => Right(a * b)
                case "/" | "%" if b == 0 => Left("division by zero")
                case "/" => Right(a / b)
                case "%" => Right(a % b)
                case other => Left("bad operator " + other)
              }
              @tailrec def gcd(a: Int, b: Int): Int = if (b == 0) a else gcd(b, a % b)
            }

            /** Constant folding and dead-binding removal. */
            object Simplify@I@ {
              def apply(e: Expr@I@): Expr@I@ = e match {
                case Bin@I@("+", Num@I@(0), x) => apply(x)
                case Bin@I@("+", x, Num@I@(0)) => apply(x)
                case Bin@I@("*", Num@I@(1), x) => apply(x)
                case Bin@I@("*", x, Num@I@(1)) => apply(x)
                case Bin@I@("*", Num@I@(0), _) | Bin@I@("*", _, Num@I@(0)) => Num@I@(0)
                case Bin@I@(_, Num@I@(_), Num@I@(_)) => Eval@I@.eval(e, Env@I@.empty).fold(_ => e, Num@I@)
                case Bin@I@(op, l, r) => Bin@I@(op, apply(l), apply(r))
                case Call@I@(f, args) => Call@I@(f, args.map(apply(_)))
                case Let@I@(n, _, b) if !free(b).contains(n) => apply(b)
                case Let@I@(n, v, b) => Let@I@(n, apply(v), apply(b))
                case If@I@(Num@I@(c), t, el) => if (c != 0) apply(t) else apply(el)
                case If@I@(c, t, el) => If@I@(apply(c), apply(t), apply(el))
                case leaf => leaf
              }
              def free(e: Expr@I@): Set[String] = e match {
                case Var@I@(n) => Set(n)
                case Num@I@(_) => Set.empty
                case Bin@I@(_, l, r) => free(l) ++ free(r)
                case Call@I@(_, as) => as.flatMap(free).toSet
                case Let@I@(n, v, b) => free(v) ++ (free(b) - n)
                case If@I@(c, t, el) => free(c) ++ free(t) ++ free(el)
              }
            }

            /** An immutable table of rows, covariant in its values. */
            final class Table@I@[K, +V] private (private val rows: Vector[(K, V)]) extends Iterable[(K, V)] {
              def iterator: Iterator[(K, V)] = rows.iterator
              def updated[W >: V](k: K, v: W): Table@I@[K, W] = new Table@I@(rows.filterNot(_._1 == k) :+ (k -> v))
              def get(k: K): Option[V] = rows.collectFirst { case (`k`, v) => v }
              def mapValues2[W](f: V => W): Table@I@[K, W] = new Table@I@(rows.map { case (k, v) => (k, f(v)) })
              def byValue[W >: V](implicit ord: Ordering[W]): List[(K, W)] = rows.toList.sortBy(r => r._2: W)
              def grouped2[G](f: V => G): Map[G, List[K]] =
                rows.groupBy(r => f(r._2)).map { case (g, rs) => g -> rs.map(_._1).toList }
            }

            object Table@I@ {
              def empty[K, V]: Table@I@[K, V] = new Table@I@(Vector.empty)
              def apply[K, V](kvs: (K, V)*): Table@I@[K, V] = new Table@I@(kvs.toVector)
            }

            object Kind@I@ extends Enumeration {
              type Kind = Value
              val Fn, Local, Param, Type = Value
            }

            final case class Sym@I@(id: Int, name: String, kind: Kind@I@.Kind) {
              def isTerm: Boolean = kind != Kind@I@.Type
            }

            /** The symbols of a unit, in the order entered. */
            class Symbols@I@ {
              private val table = mutable.LinkedHashMap.empty[String, Sym@I@]
              private var counter = 0
              def enter(name: String, kind: Kind@I@.Kind): Sym@I@ =
                table.getOrElseUpdate(name, { counter += 1; Sym@I@(counter, name, kind) })
              def lookup(name: String): Option[Sym@I@] = table.get(name)
              def all: Seq[Sym@I@] = table.values.toSeq
              def byKind: Map[Kind@I@.Kind, Seq[Sym@I@]] = all.groupBy(_.kind)
              def describe: String = byKind.toSeq.sortBy(_._1.id).map {
                case (k, ss) => s"$k: ${ss.map(_.name).sorted.mkString(", ")}"
              }.mkString("\\n")
              def enterAll(e: Expr@I@): Unit = e match {
                case Var@I@(n) => enter(n, Kind@I@.Local)
                case Call@I@(f, as) => enter(f, Kind@I@.Fn); as.foreach(enterAll)
                case Let@I@(n, v, b) => enter(n, Kind@I@.Param); enterAll(v); enterAll(b)
                case Bin@I@(_, l, r) => enterAll(l); enterAll(r)
                case If@I@(c, t, el) => Seq(c, t, el).foreach(enterAll)
                case Num@I@(_) => ()
              }
            }

            /** Big-endian and variable-length numbers from bytes. */
            class Reader@I@(bytes: Array[Byte]) {
              private var pos = 0
              def atEnd: Boolean = pos >= bytes.length
              def u1: Int = { val b = bytes(pos) & 0xff; pos += 1; b }
              def u2: Int = (u1 << 8) | u1
              def u4: Int = (u2 << 16) | u2
              def nat: Long = {
                @tailrec def loop(acc: Long): Long = {
                  val b = u1
                  val x = (acc << 7) | (b & 0x7f)
                  if ((b & 0x80) == 0) x else loop(x)
                }
                loop(0L)
              }
              def utf8(n: Int): String = { val s = new String(bytes, pos, n, "UTF-8"); pos += n; s }
              def entries[A](n: Int)(read: Reader@I@ => A): List[A] = List.fill(n)(read(this))
            }

            /** A step of a pipeline, its input and output abstract types. */
            trait Phase@I@ { self =>
              type In
              type Out
              def name: String
              def run(in: In): Out
              def andThen(next: Phase@I@ { type In = self.Out }): Phase@I@ { type In = self.In; type Out = next.Out } =
                new Phase@I@ {
                  type In = self.In
                  type Out = next.Out
                  def name: String = self.name + " > " + next.name
                  def run(in: In): Out = next.run(self.run(in))
                }
            }

            object Phases@I@ {
              val parse = new Phase@I@ {
                type In = String
                type Out = Option[Expr@I@]
                def name: String = "parse"
                def run(in: String): Option[Expr@I@] = Parser@I@.parse(in).right.toOption
              }
              val simplify = new Phase@I@ {
                type In = Option[Expr@I@]
                type Out = Option[Expr@I@]
                def name: String = "simplify"
                def run(in: Option[Expr@I@]): Option[Expr@I@] = in.map(Simplify@I@(_))
              }
              val all = parse andThen simplify
            }

            abstract class Logger@I@ {
              def log(msg: String): Unit
              def lines: Seq[String]
            }

            class BufferLogger@I@ extends Logger@I@ {
              private val buf = mutable.ArrayBuffer.empty[String]
              def log(msg: String): Unit = buf += msg
              def lines: Seq[String] = buf.toList
            }

            trait Timestamped@I@ extends Logger@I@ {
              private var n = 0
              abstract override def log(msg: String): Unit = { n += 1; super.log(s"[$n] $msg") }
            }

            trait Filtered@I@ extends Logger@I@ {
              def keep(msg: String): Boolean = !msg.isEmpty
              abstract override def log(msg: String): Unit = if (keep(msg)) super.log(msg)
            }

            /** Runs dialect @I@'s samples through the pipeline and reports. */
            object Main@I@ {
              val samples: List[String] = List(
                "let x = @I@ in x * (x + 1)",
                "if x then max(1, 2, x) else min(x, 3)",
                "sum(1, 2, 3) * len(4, 5) + f@J@(1, 2)",
                "let y = (1 + 2) * 3 in let z = y % 4 in y / (z + 1)")
              lazy val logger: Logger@I@ = new BufferLogger@I@ with Filtered@I@ with Timestamped@I@
              def run(env: Env@I@): List[(String, Either[String, Int])] =
                for {
                  (src, i) <- samples.zipWithIndex
                  ast <- Phases@I@.all.run(src).toList
                  simple = Simplify@I@(ast)
                  if simple.size <= 64 + i
                } yield {
                  logger.log(f"sample $i%3d: ${src.take(20)}%-20s size ${simple.size}%d")
                  src -> Eval@I@.eval(simple, env)
                }
              def report(env: Env@I@): String = {
                import Pretty@I@._
                val results = run(env)
                val (ok, bad) = results.partition(_._2.isRight)
                val table = ok.foldLeft(Table@I@.empty[String, Int]) {
                  case (t, (s, Right(v))) => t.updated(s, v)
                  case (t, _) => t
                }
                val byParity = table.grouped2(v => if (v % 2 == 0) "even" else "odd")
                val lines = results.map { case (s, r) => r.fold(err => s"$s: error $err", v => s"$s = $v") }
                val counts = byParity.toSeq.sortBy(_._1).map { case (k, ks) => s"$k: ${ks.length}" }
                (lines ++ counts ++ bad.map(_._1)).mkString("\\n") + Parser@I@.parse(samples.head).right.toOption.pretty +
                  table.byValue.headOption.map(_._2).pretty
              }
              def describe(x: Any): String = x match {
                case n: Int if n < 0 => "negative"
                case n: Int => "int " + n
                case s: String => "string of " + s.length
                case xs: List[_] => xs.map(describe).mkString("list(", ",", ")")
                case e: Expr@I@ => "expr of size " + e.size
                case (a, b) => s"pair(${describe(a)}, ${describe(b)})"
                case null => "null"
                case other => other.getClass.getSimpleName
              }
              val classify: PartialFunction[Expr@I@, String] = {
                case Num@I@(v) if v > 100 => "big"
                case Bin@I@(op, _, _) => "op " + op
              }
              def safely[A](body: => A)(fallback: Throwable => A): A =
                try body
                catch {
                  case e: EvalError@I@ => fallback(e)
                  case e: ArithmeticException => fallback(e)
                } finally logger.log("done")
            }
            """;

    static String module(int i, int modules) {
        return MODULE.replace("@I@", Integer.toString(i)).replace("@J@", Integer.toString((i + 1) % modules));
    }

    /** One scalac run over the sources; the mark of an iteration. */
    static void compile(String[] argv) {
        scala.tools.nsc.Main.process(argv);
        if (scala.tools.nsc.Main.reporter().hasErrors()) {
            throw new IllegalStateException("scalac failed");
        }
    }

    /** One scaladoc run over the sources; the mark of an iteration. */
    static void document(String[] argv) {
        if (!new scala.tools.nsc.ScalaDoc().process(argv)) {
            throw new IllegalStateException("scaladoc failed");
        }
    }

    public static void main(String[] args) throws IOException {
        String tool = args.length > 0 ? args[0] : "";
        if (!tool.equals("scalac") && !tool.equals("scaladoc")) {
            System.err.println("usage: ScalaDriver scalac|scaladoc [SECONDS [MODULES]]");
            System.exit(2);
        }
        int modules = args.length > 2 ? Integer.parseInt(args[2]) : MODULES;
        Path dir = Files.createTempDirectory("scala-driver");
        List<String> files = new ArrayList<>();
        Path rules = dir.resolve("src/gen/rules/Rules.scala");
        Files.createDirectories(rules.getParent());
        Files.writeString(rules, RULES);
        files.add(rules.toString());
        for (int i = 0; i < modules; i++) {
            Path f = dir.resolve("src/gen/m" + i + "/Module" + i + ".scala");
            Files.createDirectories(f.getParent());
            Files.writeString(f, module(i, modules));
            files.add(f.toString());
        }
        Path out = dir.resolve("out");
        Files.createDirectories(out);
        List<String> argv = new ArrayList<>(List.of("-d", out.toString(), "-usejavacp", "-nowarn"));
        argv.addAll(files);
        String[] a = argv.toArray(new String[0]);
        long runs = 0;
        long until = args.length > 1 ? System.nanoTime() + Long.parseLong(args[1]) * 1_000_000_000L : Long.MAX_VALUE;
        while (System.nanoTime() < until) {
            if (tool.equals("scalac")) {
                compile(a);
            } else {
                document(a);
            }
            runs++;
        }
        System.out.println("runs " + runs);
    }
}
